"""A release retrospective held or quoted in an agenda item, read into `RetroRecord`s (`_RetroReader`).

* Retrospectives (`_RetroReader`): inside an item whose title names a retro (`retro_release_of`): tallies ("1.22
  release with 24 KEPs tracked and 13 merged", "1.23 was tracking 14 with 8 merged", "8 of 14 implemented" under
  a line naming the release); a line that is only "<version> [release] retro [summary]:" switches the release
  the following lists belong to, until a list heading repeats; went-well / can-be-better / action-item lists (a
  "Suggested action:" entry is an action item wherever it sits, its follow-through is `action_status`); KEP
  tables under "Done (6):", "Removed from Milestone (17):" or "Deferred (N):" (`retro_tables`).
"""

from __future__ import annotations

import re

from retros.records import RetroEntryRecord, RetroRecord

from .agenda import _RawItem
from .inline import clean_inline
from .presenters import owner_of
from .records import MAX_INT
from .references import _URL, release_mentions
from .retro_headers import _V, _section_header, _version
from .retro_tables import _kep_table, _status_heading
from .structure import _BlockTracker, _bullet, _indent

_RETRO_CONTEXT = re.compile(rf"^({_V})\s+(?:release\s+)?retro(?:spective)?(?:\s+summary)?\s*:?$", re.I)
_TALLIES = (
    re.compile(
        rf"(?P<rel>{_V})[^.;]*?\b(?P<tracked>\d+)\s+(?:keps?\s+|enhancements\s+)?tracked\b[^.;]*?"
        rf"\b(?P<merged>\d+)\s+(?:keps?\s+)?(?:merged|implemented|done|shipped|completed)",
        re.I,
    ),
    re.compile(
        rf"(?P<rel>{_V})[^.;]*?\btracking\s+(?P<tracked>\d+)\b[^.;]*?"
        rf"\b(?P<merged>\d+)\s+(?:keps?\s+)?(?:merged|implemented|done|shipped|completed)",
        re.I,
    ),
    re.compile(
        r"(?<![\d.])(?P<merged>\d+)\s+(?:out\s+)?of\s+(?P<tracked>\d+)\s+(?:keps?\s+)?(?:were\s+)?"
        r"(?:merged|implemented|done|shipped|completed|graduated)",
        re.I,
    ),
)


def action_status(text: str) -> str:
    """An action item's follow-through as the notes state it; "not_recorded" where they say nothing (a suggestion
    in 2022's notes is not open work in 2026)."""
    lower = text.lower()
    if re.search(r"^\s*~~.*~~\s*$", text) or re.search(r"\((?:done|completed)\)|\bdone\s*[:!✅]|✅|\[x\]", lower):
        return "done"
    if re.search(r"\b(?:dropped|won'?t\s+do|wontfix|abandoned)\b", lower):
        return "dropped"
    if re.search(r"\bin[\s-]progress\b|\(wip\)|\[wip\]", lower):
        return "in_progress"
    if re.search(r"\((?:open|todo|to\s+do)\)|\[ \]", lower):
        return "open"
    return "not_recorded"


class _RetroReader:
    """Reads one retrospective agenda item: tallies, went-well/to-improve/action lists and KEP tables.

    `read` walks the item's lines once; what one line says about the next (which release and which list they
    belong to, a KEP table heading waiting for its table) is the state below.
    """

    def __init__(self, raw: _RawItem, name: str, warnings: list[str]):
        self.raw = raw
        self.name = name
        self.warnings = warnings
        self.records: dict[str, RetroRecord] = {}
        # The release the lines belong to: the item's own until a "<version> retro:" line switches to another.
        self.release = raw.retro_release
        # List headings met since the release last switched: one met again ends the other release's summary.
        self.seen: set[str] = set()
        # The list being read, its heading's indent and whether the heading is a bullet, its first entry's indent.
        self.section: str | None = None
        self.header_indent: int | None = None
        self.header_is_bullet = False
        self.entry_indent: int | None = None
        # (indent, text) of the line and of those it is nested under: a tally may name its release in one of them.
        self.ancestors: list[tuple[int, str]] = []
        # A KEP table heading ("Done (6):") waiting for its table: (status, KEPs it announces, its line).
        self.pending: tuple[str, int | None, int] | None = None

    def record(self, release: str, line: int, *, held: bool = False) -> RetroRecord:
        record = self.records.get(release)
        if record is None:
            record = self.records[release] = RetroRecord(release=release, held=held, line=line)
        record.held = record.held or held
        return record

    def read(self) -> list[RetroRecord]:
        self.record(self.raw.retro_release, self.raw.line, held=True)
        lines = self.raw.lines
        i = 0
        while i < len(lines):
            no, line = lines[i]
            i += 1
            if not line.strip():
                continue
            if line.lstrip().lower().startswith("<table") or (self.pending and line.lstrip().startswith("|")):
                block = self._take_table(lines, i - 1)
                i += len(block) - 1
                self._table(block)
                continue
            self._line(no, line)
        return [r for r in self.records.values() if r.held or r.tracked is not None or r.entries or r.keps]

    def _table(self, block: list[tuple[int, str]]) -> None:
        """A table is read as the KEP table of the heading waiting for it; with no heading waiting, it is not read."""
        if not self.pending:
            return
        status, declared, at = self.pending
        rows = _kep_table(block, status, self.release, self.name, self.warnings)
        if declared is not None and declared != len(rows):
            self.warnings.append(f"{self.name}:{at}: heading announces {declared} KEPs, the table lists {len(rows)}")
        self.record(self.release, at).keps.extend(rows)
        self.pending = None

    def _line(self, no: int, line: str) -> None:
        """A line outside a table: a release switch, a KEP table heading, a tally, a list heading, a list entry, or
        else text that may hold the retro document's link."""
        own = self.raw.retro_release
        bullet = _bullet(line)
        indent = _indent(line)
        content = (bullet.group("text") or "") if bullet else line.strip()
        cleaned = clean_inline(content)
        while self.ancestors and self.ancestors[-1][0] >= indent:
            self.ancestors.pop()
        self.ancestors.append((indent, cleaned))
        if no == self.raw.line:
            self._source_url(self.record(own, no), line)
            return
        context = _RETRO_CONTEXT.match(cleaned)
        if context:
            self.release, self.section, self.seen = _version(context.group(1)), None, set()
            self.record(self.release, no, held=self.release == own)
            return
        status = _status_heading(content) if not bullet else None
        if status:
            self.pending = (status[0], status[1], no)
            return
        self.pending = None
        if self._tally(cleaned, self.ancestors, self.release, no):
            return
        header = _section_header(content)
        if header:
            self._list_heading(header, indent=indent, is_bullet=bool(bullet))
            return
        if self.section and bullet and self._list_entry(content, indent=indent, no=no):
            return
        self._source_url(self.record(own, self.raw.line), line)

    def _list_heading(self, header: str, *, indent: int, is_bullet: bool) -> None:
        """A went-well / to-improve / action-item heading: the entries below it belong to that list."""
        own = self.raw.retro_release
        if header in self.seen and self.release != own:
            # A list heading repeats: the quoted other release's summary is over.
            self.release, self.seen = own, set()
        self.seen.add(header)
        self.section, self.header_indent, self.header_is_bullet, self.entry_indent = header, indent, is_bullet, None

    def _list_entry(self, content: str, *, indent: int, no: int) -> bool:
        """A bullet under a list heading: an entry of that list (a deeper one continues the entry above), True; or,
        indented out of the list, the list's end, False."""
        if self.entry_indent is None:
            if self.header_is_bullet and indent < self.header_indent:
                self.section = None
            else:
                self.entry_indent = indent
        elif indent < self.entry_indent - 1:
            self.section = None
        if not self.section:
            return False
        record = self.record(self.release, no)
        if indent > self.entry_indent + 1 and record.entries:
            last = record.entries[-1]
            last.text = f"{last.text}\n- {clean_inline(content)}"
        else:
            record.entries.append(self._entry(self.section, content, no))
        return True

    def _take_table(self, lines, start):
        if lines[start][1].lstrip().startswith("|"):
            end = start
            while end < len(lines) and lines[end][1].lstrip().startswith("|"):
                end += 1
            return lines[start:end]
        tracker = _BlockTracker()
        end = start
        while end < len(lines):
            tracker.feed(*lines[end])
            end += 1
            if not tracker.table_depth:
                break
        return lines[start:end]

    def _tally(self, cleaned, ancestors, release, no) -> bool:
        for pattern in _TALLIES:
            m = pattern.search(cleaned)
            if not m:
                continue
            tracked, merged = int(m.group("tracked")), int(m.group("merged"))
            named = m.groupdict().get("rel")
            if named:
                target = _version(named)
            else:
                mentioned = [release_mentions(text) for _, text in reversed(ancestors)]
                target = next((found[0] for found in mentioned if found), release)
            if merged > tracked or tracked > MAX_INT:
                self.warnings.append(f"{self.name}:{no}: tally for {target} has more merged than tracked; ignored")
                return True
            record = self.record(target, no, held=False)
            record.tracked, record.merged = tracked, merged
            return True
        return False

    def _source_url(self, record: RetroRecord, line: str) -> None:
        if record.source_url or not re.search(r"retro", line, re.I):
            return
        for url in _URL.findall(line):
            url = url.rstrip(".,;:!?*_")
            if len(url) <= 200 and "github.com" not in url:
                record.source_url = url
                return

    @staticmethod
    def _entry(section: str, content: str, no: int) -> RetroEntryRecord:
        """One list entry; "Suggested action: ..." / "AI(owner): ..." is an action item in any list."""
        text = clean_inline(content)
        category = section
        owner = None
        prefix = _ACTION_PREFIX.match(text)
        if prefix:
            category = "action_item"
            text = text[prefix.end() :].strip() or text
            if prefix.group(1):
                owner = owner_of(f"[{prefix.group(1)}]")
        if category != "action_item":
            return RetroEntryRecord(category=category, text=text, owner=None, status="", line=no)
        return RetroEntryRecord(
            category=category, text=text, owner=owner or owner_of(content), status=action_status(content), line=no
        )


_ACTION_PREFIX = re.compile(r"^(?:suggested\s+action|action(?:\s+item)?|ai)\s*(?:\(\s*([^)]*?)\s*\))?\s*:\s*", re.I)
