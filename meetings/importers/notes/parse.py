"""A whole archive file: its meetings, one per dated heading (`parse_meeting_notes`).

* Years: a heading without a year takes the file name's year, else the last year seen above it, else the file
  is refused. An impossible date ("Feb 30", year outside 2000-2099) is reported and its section dropped, not
  merged into the meeting above. Tabs count as 4 spaces.
* Several days in one heading ("December 24 & 31, 2019"): one meeting per day, all with the heading's cancelled
  flag; the notes under the heading belong to the first day only (upstream uses this for holiday weeks).
* Duplicate dates in one file: merged into one meeting (items appended in file order), with a warning.
* PR flow: read before the first agenda item. When that part has none, tables and paragraphs (not bullets)
  later in the meeting with at least two figures supply them (`_late_flow_lines`): 2020-10-13 put the table
  after the agenda, 2021-03-09 and 2023-10-17 inside an item.
* Unchanged meetings (`known`): each section has a fingerprint (`section_fingerprint`: its dates and the text
  of its lines, not their numbers, so a meeting added above it does not change it). Given the fingerprints
  stored by the last import, a section whose dates all carry its fingerprint is not parsed: its dates are
  listed in `unchanged` with the line it now starts at. Never skipped: a date two sections share (they are
  merged) and a long section (an oversized item's cut names its line). Its warnings are not repeated. The
  sections that mention a retro are skipped all together or not at all (retros are written file by file, from
  every meeting that quotes them): only when each is unchanged and none that did (their fingerprints say so,
  `RETRO_MARK`) has left the file; `known` should then be the file's own meetings.
* Bad input: binary/oversized/non-UTF-8 files are refused by `read_text`; a file with no dated heading ("not
  meeting notes") or ending inside an HTML table or code fence ("truncated") raises `ImportFailure` with the line.
"""

from __future__ import annotations

import datetime
import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

from core.importing import ImportFailure
from retros.records import RetroRecord

from .agenda import _make_item, split_items
from .cancellation import _CANCELLED_WORDS, is_cancellation
from .flow import _recording, pr_flow
from .headings import Heading, _undated_heading, parse_heading, year_from_filename
from .inline import clean_inline
from .records import MeetingRecord, NotesRecord
from .retro import _RetroReader
from .structure import _BlockTracker, _bullet


@dataclass
class _Section:
    heading: Heading
    line: int
    dates: list[datetime.date]
    lines: list[tuple[int, str]] = field(default_factory=list)
    blocked: list[bool] = field(default_factory=list)


#: Characters of a section above which it is always parsed (an agenda item cut for the search index names its line).
SKIP_MAX_CHARS = 50_000


#: Starts the fingerprint of a section that mentions a retro (in place of the digest's first two characters: the
#: column holds 64), so the stored ones tell which meetings did; a plain digest never starts with it.
RETRO_MARK = "r:"


def section_fingerprint(dates: list[datetime.date], lines: list[tuple[int, str]], heading: Heading) -> str:
    """A section's identity for `known`: its dates, heading and line texts; the line numbers left out;
    `RETRO_MARK` first when a line mentions a retro."""
    digest = hashlib.sha256(repr((dates, heading)).encode())
    for _, line in lines:
        digest.update(b"\n" + line.encode())
    retro = any("retro" in line.lower() for _, line in lines)
    hexdigest = digest.hexdigest()
    return RETRO_MARK + hexdigest[len(RETRO_MARK) :] if retro else hexdigest


def _unchanged(section: _Section, fingerprint: str, known: Mapping[datetime.date, str], shared: Counter) -> bool:
    if not section.dates or any(shared[date] > 1 or known.get(date) != fingerprint for date in section.dates):
        return False
    return sum(len(line) for _, line in section.lines) <= SKIP_MAX_CHARS


def _retros_unchanged(sections: list[_Section], fingerprints: dict[int, str], known, shared: Counter) -> bool:
    """Whether every section that mentions a retro is as last imported and none that did has left the file."""
    dates = {date for section in sections for date in section.dates}
    if any(fingerprint.startswith(RETRO_MARK) and date not in dates for date, fingerprint in known.items()):
        return False
    return all(
        _unchanged(section, fingerprint, known, shared)
        for section in sections
        if (fingerprint := fingerprints.get(id(section), "")).startswith(RETRO_MARK)
    )


def parse_meeting_notes(
    text: str,
    *,
    source: str = "",
    default_year: int | None = None,
    known: Mapping[datetime.date, str] | None = None,
) -> NotesRecord:
    """Parse one archive file's text; `source` (the file name) supplies the year headings leave out; with `known`
    (date -> fingerprint stored), the sections already imported as they are now are not parsed."""
    if default_year is None:
        default_year = year_from_filename(source)
    warnings: list[str] = []
    name = PurePath(source).name if source else "<input>"
    # PostgreSQL text columns cannot hold NUL; the file reader refuses such files, and text handed in
    # directly is refused the same way rather than failing later inside the database.
    nul = text.find("\x00")
    if nul >= 0:
        raise ImportFailure("binary content (contains a NUL byte)", source=name, line=text.count("\n", 0, nul) + 1)
    sections: list[_Section] = []
    current: _Section | None = None
    blocks = _BlockTracker()
    last_year: int | None = None
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.expandtabs(4).rstrip()
        if not blocks.inside:
            heading = parse_heading(line)
            if heading is not None:
                dates, last_year = _heading_dates(heading, no, default_year, last_year, name, warnings)
                current = _Section(heading, no, dates)
                sections.append(current)
                continue
            if line.lstrip().startswith("#") and _undated_heading(line):
                warnings.append(f"{name}:{no}: heading {clean_inline(line.lstrip('# '))[:80]!r} names no day; skipped")
        inside = blocks.feed(no, line)
        if current is not None:
            current.lines.append((no, line))
            current.blocked.append(inside)
    if blocks.table_depth:
        raise ImportFailure("truncated: an HTML <table> is never closed", source=name, line=blocks.table_line)
    if blocks.fence_line:
        raise ImportFailure("truncated: a ``` code block is never closed", source=name, line=blocks.fence_line)
    if not sections:
        raise ImportFailure("not meeting notes: no dated meeting heading found (e.g. '## Dec 13, 2022')", source=name)
    meetings: dict[datetime.date, MeetingRecord] = {}
    unchanged: list[tuple[datetime.date, int]] = []
    shared = Counter(date for section in sections for date in section.dates)
    fingerprints = {
        id(section): section_fingerprint(section.dates, section.lines, section.heading)
        for section in sections
        if section.dates
    }
    retros_unchanged = bool(known) and _retros_unchanged(sections, fingerprints, known, shared)
    for section in sections:
        if not section.dates:
            continue
        fingerprint = fingerprints[id(section)]
        skippable = known and _unchanged(section, fingerprint, known, shared)
        if skippable and (retros_unchanged or not fingerprint.startswith(RETRO_MARK)):
            unchanged += [(date, section.line) for date in section.dates]
            continue
        for meeting in _parse_section(section, name, warnings):
            meeting.fingerprint = fingerprint if shared[meeting.date] == 1 else ""
            previous = meetings.get(meeting.date)
            if previous is None:
                meetings[meeting.date] = meeting
            else:
                warnings.append(
                    f"{name}:{meeting.line}: {meeting.date} already has a meeting at line {previous.line}; merged"
                )
                _merge(previous, meeting)
    return NotesRecord(source=name, meetings=list(meetings.values()), warnings=warnings, unchanged=unchanged)


def _heading_dates(heading, no, default_year, last_year, name, warnings):
    """Resolve a heading's dates (filling a missing year); impossible ones are warned about and dropped."""
    dates = []
    for year, month, day in heading.parts:
        if year is None:
            year = default_year or last_year
            if year is None:
                raise ImportFailure(
                    "heading has no year and neither the file name nor an earlier heading gives one",
                    source=name,
                    line=no,
                )
        try:
            if not 2000 <= year <= 2099:
                raise ValueError(f"year {year} out of range")
            dates.append(datetime.date(year, month, day))
        except ValueError:
            warnings.append(f"{name}:{no}: impossible date in heading {heading.title!r}; its notes are skipped")
            return [], last_year
        last_year = year
    return dates, last_year


def _merge(into: MeetingRecord, other: MeetingRecord) -> None:
    into.cancelled = into.cancelled and other.cancelled
    for name in ("recording_url", "open_prs", "prs_created", "prs_updated", "prs_closed", "prs_merged"):
        if getattr(into, name) in (None, ""):
            setattr(into, name, getattr(other, name))
    for item in other.items:
        item.order = len(into.items)
        into.items.append(item)
    into.retros = _merge_retros([*into.retros, *other.retros])


def _parse_section(section: _Section, name: str, warnings: list[str]) -> list[MeetingRecord]:
    preamble, raw_items = split_items(section.lines, section.blocked)
    preamble_text = [line for _, line in preamble]
    meeting = MeetingRecord(
        date=section.dates[0],
        title=section.heading.title,
        line=section.line,
        cancelled=section.heading.cancelled,
        recording_url=_recording(preamble_text),
    )
    figures = pr_flow(preamble_text)
    if not figures:
        figures = pr_flow(_late_flow_lines(section))
        if len(figures) < 2:
            figures = {}  # one stray "Merged: 3" in the notes is not the week's PR flow
    for key, value in figures.items():
        setattr(meeting, key, value)
    first = clean_inline(next((line for _, line in preamble if line.strip()), ""))
    if first and (is_cancellation(first) or (len(first) <= 160 and _CANCELLED_WORDS.search(first))):
        # The meeting's first line says it did not happen ("No agenda, canceling to focus on code freeze.").
        meeting.cancelled = True
    retros: list[RetroRecord] = []
    for raw in raw_items:
        item = _make_item(raw, len(meeting.items))
        if item is None:
            continue
        if not item.body and is_cancellation(item.title):
            meeting.cancelled = True
            continue
        meeting.items.append(item)
        if raw.retro_release:
            retros.extend(_RetroReader(raw, name, warnings).read())
    meeting.retros = _merge_retros(retros)
    extra = [
        MeetingRecord(date=date, title=meeting.title, line=section.line, cancelled=meeting.cancelled)
        for date in section.dates[1:]
    ]
    return [meeting, *extra]


def _late_flow_lines(section: _Section) -> list[str]:
    """Where a PR-flow table sits when not above the agenda: HTML/pipe table rows and paragraphs (not bullets)."""
    return [
        line
        for (_, line), inside in zip(section.lines, section.blocked, strict=True)
        if inside or (line.strip() and not _bullet(line))
    ]


def _merge_retros(retros: list[RetroRecord]) -> list[RetroRecord]:
    """One record per release: a retro's items may be spread over several agenda items of a meeting."""
    merged: dict[str, RetroRecord] = {}
    for retro in retros:
        into = merged.get(retro.release)
        if into is None:
            merged[retro.release] = retro
            continue
        into.held = into.held or retro.held
        into.source_url = into.source_url or retro.source_url
        if retro.tracked is not None:
            into.tracked, into.merged = retro.tracked, retro.merged
        into.entries.extend(retro.entries)
        known = {row.number: i for i, row in enumerate(into.keps)}
        for row in retro.keps:
            if row.number in known:
                into.keps[known[row.number]] = row
            else:
                known[row.number] = len(into.keps)
                into.keps.append(row)
    return list(merged.values())
