"""Parser for a release schedule: kubernetes/sig-release `releases/release-1.NN/README.md` -> `Schedule`.

A schedule README gives the same milestones twice: a summary list near the top
(``- **02:00 UTC Friday 4th February 2022** / **18:00 PST ...** : Week 4 — [Enhancements Freeze](...)``)
and a timeline table (``| **Begin [Enhancements Freeze]** | Enhancements Lead | 02:00 UTC ... | week 4 |``;
before 1.19 with one column per month, ``| Mon 6 | | |``). Both are read; entries for the same
milestone are merged (see `_merge`).

Milestone identity (`milestone_key`): ``(kind, slot)``. Kinds that happen once a cycle (cycle start, PRR,
enhancements, feature-blog, code and test freezes, release day) have the empty slot, so a renamed row
still updates the same milestone. Docs deadlines use ``placeholder`` / ``review`` / ``freeze``,
retrospectives ``part N`` (or empty), and `other` events their normalised label. The service looks
milestones up by ``(release, kind, slot)``, the slot computed from the stored label with the same function.

Older schedules have other shapes, each read as well (one place per shape, all merged the same way):

- 2016 (1.3): ``###Mar 21 - Mar 25`` headings over undated bullets (``- release 1.3 Final``): a bullet without a
  date of its own takes its heading's first day (`_heading_bullets`).
- 2016–2017 (1.5–1.9): bullets that start with a plain date (``- July 5 (Weds) coding start (7w)``,
  ``* **Wed Dec 13: v1.9.0**``), or a bold date alone with its words on the sub-bullet below
  (``- [x] **Monday, September 19, 2016**`` / ``  - 7 week coding period begins``) (`_dated_bullets`).
- 2018 (1.10–1.13): the "tl;dr" paragraph, one sentence per milestone (``begins on **Monday, July 2nd, 2018**,
  and ends on release day, ~~Tuesday, September 25, 2018~~ **Thursday, September 27, 2018**``); a struck date
  was moved and is not read; a date without a year takes the cycle start's (`_tldr`). Their month-column tables
  say ``v1.12.0`` for release day and ``1.13 Release Cycle Begins`` for the next cycle: a row that names the
  release's own version alone is its release day, a cycle start of another version is not this one's.

A README with no dated milestone at all yields a `Schedule` without milestones and one warning (the service
writes nothing for it): it is not a failure.

Rows of no milestone kind are imported as `other` only when they are events worth showing on the release
page (`_OTHER_EVENTS`: calls for exceptions, burndown, thaw, cherry-pick deadline, KubeCon); alpha/beta/rc
builds, branch creation and team chores are not. A row that names no date ("TBC") is not imported; for a
freeze, a warning says so.

Pure: text in, dataclasses out, `ImportFailure` for input that is not a schedule. Time rules live in
`schedule_time`.
"""

import datetime
import re
import unicodedata
from dataclasses import dataclass, field

from core.importing import ImportFailure
from releases.choices import MilestoneKind

from . import schedule_time as st

#: Longest wording kept in `Milestone.source_text` (the model's max_length).
SOURCE_TEXT_MAX = 500
#: Largest major or minor number: `Release.major` and `Release.minor` are PositiveSmallIntegerFields.
VERSION_PART_MAX = 32767
_VERSION_IN_TEXT = re.compile(r"(?<![\w.])v?(1)\.(\d{1,2})(?![\d])(?:\.\d+)?")
_FOLDER_VERSION = re.compile(r"^release-v?(\d+)\.(\d+)$")
_H1 = re.compile(r"^#\s+(?P<title>\S.*?)\s*#*\s*$")
_FRONT_TITLE = re.compile(r"^title:\s*[\"']?(?P<title>.*?)[\"']?\s*$")
#: A title part that says what the document is ("Proposed timeline for", 2017, 1.8; "Release Schedule"), not what
#: the release is called.
_DOCUMENT_WORDS = re.compile(r"\b(?:timeline|schedule|proposed|proposal|plan|planning)\b", re.IGNORECASE)
_NAMED = re.compile(r"\bis named\s+[*_]+(?P<name>[^*_\n]{1,80})[*_]+", re.IGNORECASE)
_THIS_DOCUMENT = re.compile(r"\[This document\]\((?P<url>https?://[^)\s]+)\)", re.IGNORECASE)
# A summary bullet: "- **<when>**: <what>", "- **<when>** / **<when>** : <what>" or "- **<when>** — <what>".
_BULLET = re.compile(
    r"^\s*[-*+]\s+(?P<when>\*\*.+?\*\*(?:\s*/\s*\*\*.+?\*\*)*)\s*(?::|\s[-\u2013\u2014]\s)\s*(?P<what>.+?)\s*$"
)
_BULLET_START = re.compile(r"^\s*[-*+]\s+\*\*")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_WEEK_PREFIX = re.compile(r"^(?:week\s*\d+|tbc|tbd)\s*(?:[-:,]\s*)?", re.IGNORECASE)
_PARENTHESES = re.compile(r"\s*\([^()]*\)")
_RELEASE_DAY = re.compile(r"(?<![\w.-])v?\d+\.\d+\.0\s+(?:is\s+)?released\b|\brelease day\b", re.IGNORECASE)
_PART = re.compile(r"\bpart\s*(\d+)\b", re.IGNORECASE)
_HEADING = re.compile(r"^\s*#{1,6}\s*(?P<text>.*?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^(?P<indent>\s*)[-*+]\s+(?:\[[ xX]\]\s+)?(?P<text>.*?)\s*$")
_TLDR = re.compile(r"\btl;\s*dr\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?](?:\s+|$)")
# A label that names a release alone: "v1.12.0", "v1.8.0 release!", "Release 1.5", "release 1.3 Final".
_NAMES_RELEASE = re.compile(
    r"^(?:kubernetes\s+)?(?:release\s+)?v?(?P<major>\d+)\.(?P<minor>\d+)(?:\.0)?"
    r"(?:\s+(?:final|release[sd]?|is\s+released|ships))?$"
)
_MONTH_HEADER = re.compile(
    r"^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?$",
    re.IGNORECASE,
)

#: Kinds that occur once per release: their slot is empty, so the label may change between imports.
SINGLE_KINDS = frozenset(
    {
        MilestoneKind.CYCLE_START,
        MilestoneKind.PRR_FREEZE,
        MilestoneKind.ENHANCEMENTS_FREEZE,
        MilestoneKind.FEATURE_BLOG_FREEZE,
        MilestoneKind.CODE_FREEZE,
        MilestoneKind.TEST_FREEZE,
        MilestoneKind.RELEASE,
    }
)
#: Events of no milestone kind that are still worth showing on the release page, as `other`.
_OTHER_EVENTS = re.compile(
    r"\bcall for\b.*\bexceptions?\b|\bbegin burndown\b|\bthaw\b|\bcherry pick deadline\b|\bkubecon\b"
)


@dataclass
class ScheduleWarning:
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass
class MilestoneData:
    kind: str
    label: str
    at: datetime.datetime
    all_day: bool
    quoted_timezone: str
    source_text: str
    line: int
    origin: str  # "list" or "table"
    exception_deadline: datetime.datetime | None = None
    disagreements: int = 0  # warnings raised while reading its time (fewer is more trustworthy)

    @property
    def key(self) -> tuple[str, str]:
        return milestone_key(self.kind, self.label)


@dataclass
class Schedule:
    version: str
    name: str
    cycle_start: datetime.date | None
    planned_release_date: datetime.date | None
    source_url: str
    milestones: list[MilestoneData]
    warnings: list[ScheduleWarning] = field(default_factory=list)


@dataclass
class _Entry:
    """One dated line of the schedule, before its year is known."""

    line: int
    origin: str
    what: str  # cleaned label text
    wording: str  # the schedule's own words, for source_text
    when: st.When
    kinds: list[tuple[str, str]]  # (kind, label)
    exception_for: list[str] = field(default_factory=list)  # freeze kinds whose exception deadline this is


# -- labels and kinds --------------------------------------------------------------------------------------------


def normalise_label(text: str) -> str:
    """Lower-case words only: the comparable form of a label."""
    text = st.clean_markdown(text).lower()
    return re.sub(r"[^a-z0-9.]+", " ", text).strip()


def milestone_key(kind: str, label: str) -> tuple[str, str]:
    """Identity of a milestone within its release: `(kind, slot)` (see the module docstring)."""
    if kind in SINGLE_KINDS:
        return kind, ""
    text = normalise_label(_PARENTHESES.sub("", label))
    if kind == MilestoneKind.RETROSPECTIVE:
        part = _PART.search(text)
        return kind, f"part {int(part.group(1))}" if part else ""
    if kind == MilestoneKind.DOCS_FREEZE:
        if "placeholder" in text:
            return kind, "placeholder"
        if "complete" in text or "freeze" in text:
            return kind, "freeze"
        if "review" in text:
            return kind, "review"
        return kind, text
    return kind, text


def display_label(text: str) -> str:
    """A row's "What" (or a bullet's description) as shown: no Markdown, week prefix, time notes or parentheses."""
    text = st.clean_markdown(text)
    text = _WEEK_PREFIX.sub("", text)
    text = _PARENTHESES.sub("", text)
    text = re.sub(
        r"\b(?:at\s+)?(?:\d{1,2}:\d{2}\s*(?:[ap]\.?m\.?)?|\d{1,2}\s*[ap]\.?m\.?)(?![a-z])\s*(?:UTC|PDT|PST|PT)?\b",
        "",
        text,
        flags=re.I,
    )
    text = re.sub(r"\bat the kubernetes community meeting\b", "", text, flags=re.I)
    return re.sub(r"\s+", " ", text).strip(" -:,")[:200]


_FREEZE_WORDS = [
    (MilestoneKind.PRR_FREEZE, re.compile(r"\bprr\b|production readiness")),
    (MilestoneKind.ENHANCEMENTS_FREEZE, re.compile(r"\benhancements?\b|\bfeature freeze\b")),
    (MilestoneKind.CODE_FREEZE, re.compile(r"\bcode\b")),
    (MilestoneKind.TEST_FREEZE, re.compile(r"\btest\b")),
    (MilestoneKind.DOCS_FREEZE, re.compile(r"\bdocs?\b")),
]


def classify(what: str, *, version: str | None = None) -> tuple[list[str], list[str]]:
    """The milestone kinds a label names (several for "Code Freeze and Test Freeze"), and the freezes it
    closes the exception window of ("Enhancements Freeze exception deadline").

    With the schedule's `version`, a label naming another release's version alone or its cycle start ("1.13 Release
    Cycle Begins" in the 1.12 schedule) is no milestone of this release."""
    text = normalise_label(_PARENTHESES.sub("", what))
    named = _VERSION_IN_TEXT.search(text)
    other_version = bool(version and named and f"{named.group(1)}.{int(named.group(2))}" != version)
    if text in ("release", "final release", "release day"):  # "- Sept 20 release" (1.4, 2016)
        return [MilestoneKind.RELEASE], []
    if re.search(r"\bevaluat", text):  # "1st stability evaluation to shorten Code Freeze" (1.11) is no freeze
        return [], []
    if alone := _NAMES_RELEASE.match(text):
        if version is None or f"{alone.group('major')}.{int(alone.group('minor'))}" == version:
            return [MilestoneKind.RELEASE], []
        return [], []
    raw = st.clean_markdown(what)
    if "exception" in text:
        if re.search(r"\b(deadline|due|close[sd]?|closing|ends?|last day)\b", text) and "call for" not in text:
            return [], [kind for kind, words in _FREEZE_WORDS if words.search(text)]
        return ([MilestoneKind.OTHER] if _OTHER_EVENTS.search(text) else []), []
    if "brace yourself" in text:
        return [], []
    kinds = []
    if (
        re.search(
            r"\bstart of (the )?release cycle\b|\brelease cycle (begins|starts)\b"
            r"|\bcoding (start|starts|begins|period begins|week 1)\b",
            text,
        )
        and not other_version
    ):
        kinds.append(MilestoneKind.CYCLE_START)
    if re.search(r"\b(production readiness|prr)\b.*\bfreeze\b", text):
        kinds.append(MilestoneKind.PRR_FREEZE)
    if re.search(r"\bfeature blogs? freeze\b", text):
        kinds.append(MilestoneKind.FEATURE_BLOG_FREEZE)
    elif re.search(r"\benhancements? freeze\b|\bfeature freeze\b|\bfeatures? repo freeze\b", text):
        kinds.append(MilestoneKind.ENHANCEMENTS_FREEZE)
    # The end of code freeze (2017-2018: "End of code freeze: master branch re-opens") is its thaw, not the freeze.
    if re.search(r"\bend of (the )?code freeze\b|\bcode freeze (ends|is lifted)\b|\blift (the )?code freeze\b", text):
        kinds.append(MilestoneKind.OTHER)
    elif re.search(r"\bcode (and test )?freeze\b", text) and not re.search(r"\blifting (the )?code freeze\b", text):
        kinds.append(MilestoneKind.CODE_FREEZE)
    if re.search(r"\btest freeze\b", text):
        kinds.append(MilestoneKind.TEST_FREEZE)
    if re.search(r"\bdocs? (freeze|deadline|complete|must be completed)\b", text):
        kinds.append(MilestoneKind.DOCS_FREEZE)
    if _RELEASE_DAY.search(raw):
        kinds.append(MilestoneKind.RELEASE)
    if re.search(r"\bretrospective\b|\bretro\b", text):
        kinds.append(MilestoneKind.RETROSPECTIVE)
    if not kinds and _OTHER_EVENTS.search(text):
        kinds.append(MilestoneKind.OTHER)
    return kinds, []


# -- reading the file --------------------------------------------------------------------------------------------


def _title_and_version(lines: list[str], version_hint: str | None) -> tuple[str, str, str, list[ScheduleWarning]]:
    """(version, name, title) from the folder name and the first `#` heading (or the front matter's title)."""
    warnings = []
    title, title_line, front_title = "", None, ""
    in_front = bool(lines) and lines[0].strip() == "---"
    for number, line in enumerate(lines, 1):
        if in_front:
            if number > 1 and line.strip() == "---":
                in_front = False
            elif match := _FRONT_TITLE.match(line):
                front_title = match.group("title")
            continue
        if match := _H1.match(line):
            title, title_line = st.clean_markdown(match.group("title")), number
            break
    found = _VERSION_IN_TEXT.search(title) or _VERSION_IN_TEXT.search(front_title)
    title_version = f"{found.group(1)}.{int(found.group(2))}" if found else None
    version = version_hint or title_version
    if not version:
        raise ImportFailure("no release version: neither the folder name (release-1.NN) nor the title gives one")
    if version_hint and title_version and title_version != version_hint:
        warnings.append(
            ScheduleWarning(title_line, f"title says {title_version} but the folder is release-{version_hint}")
        )
    name = ""
    if title:
        match = _VERSION_IN_TEXT.search(title)
        parts = [title[: match.start()], title[match.end() :]] if match else [title]
        parts = [part.strip(" :-,") for part in parts]
        parts = [
            part
            for part in parts
            if part and part.lower() not in ("kubernetes", "k8s", "release") and not _DOCUMENT_WORDS.search(part)
        ]
        name = ": ".join(parts)
        name = re.sub(r"\s*release information$", "", name, flags=re.IGNORECASE)
        name = _strip_symbols(name)
    if not name:
        text = "\n".join(lines)
        if match := _NAMED.search(text):
            name = match.group("name").strip()
    return version, name[:100], title, warnings


def _strip_symbols(text: str) -> str:
    """A release name without decoration: emoji and other pictographs go, words stay.

    release-1.29: ``# Kubernetes 1.29: Mandala (The Universe) ✨🌌`` is named "Mandala (The Universe)". Symbols
    (Unicode categories So and Sk, which hold emoji and their skin-tone modifiers), emoji variation
    selectors and joiners are dropped; letters in any script are kept.
    """
    kept = "".join(
        char for char in text if unicodedata.category(char) not in ("So", "Sk") and char not in "\ufe0e\ufe0f\u200d"
    )
    return re.sub(r"\s+", " ", kept).strip(" :-,")


def _split_row(line: str) -> list[str]:
    line = line.strip().replace("\\|", "\u2016")
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [cell.replace("\u2016", "|").strip() for cell in line.split("|")]


def _table_rows(lines: list[str]):
    """Yield (line number, what, when) for every row of every timeline table in the file."""
    index = 0
    while index < len(lines) - 1:
        line = lines[index]
        if not (line.lstrip().startswith("|") and _TABLE_SEPARATOR.match(lines[index + 1])):
            index += 1
            continue
        header = [st.clean_markdown(cell).lower() for cell in _split_row(line)]
        when_col = next((i for i, cell in enumerate(header) if "when" in cell or cell == "date"), None)
        month_cols = {i: cell for i, cell in enumerate(header) if _MONTH_HEADER.match(cell)}
        # The "What" column, else the first column that is not a date column.
        what_col = next(
            (i for i, cell in enumerate(header) if re.search(r"\b(what|event|milestone)\b", cell)),
            next((i for i in range(len(header)) if i != when_col and i not in month_cols), 0),
        )
        index += 2
        while index < len(lines) and lines[index].lstrip().startswith("|"):
            cells = _split_row(lines[index])
            what = cells[what_col] if what_col < len(cells) else ""
            when = ""
            if when_col is not None and when_col < len(cells):
                when = cells[when_col]
            elif month_cols:
                # Old layout (1.18 and before): the day sits in its month's column, e.g. "Tue 28" under "Jan".
                for col, month in month_cols.items():
                    if col < len(cells) and cells[col].strip():
                        when = f"{cells[col]} {month}"
                        break
            if what and (when_col is not None or month_cols):
                yield index + 1, what, when
            index += 1


def _bullets(lines: list[str]):
    """Yield (line number, when, what) for every summary bullet that starts with a bold date."""
    for number, line in enumerate(lines, 1):
        if not _BULLET_START.match(line):
            continue
        # A bullet may wrap onto indented lines (release-1.34: "- **Thursday 12th June 2025**:\n  Week 4 — ...").
        for follow in [] if _BULLET.match(line) else lines[number : number + 3]:
            if not follow.strip() or not follow[:1].isspace() or _BULLET_START.match(follow):
                break
            line = f"{line.rstrip()} {follow.strip()}"
        if match := _BULLET.match(line):
            yield number, match.group("when"), match.group("what")


def _plain(line: str) -> str:
    """A list item's or heading's text without Markdown emphasis or links."""
    return st.clean_markdown(line)


def _dated_bullets(lines: list[str], taken: set[int]):
    """Yield (line number, when, what) for bullets that start with a plain date (releases 1.5-1.9).

    ``- Aug 1 (Tues): Feature Freeze``, ``* **Fri Oct 27: [Feature Freeze](#feature-freeze)**``; a bullet that is a
    date alone takes the words of the first more-indented item below it (``- [x] **Monday, November 7, 2016**`` /
    ``  - Feature Complete Date``). Lines in `taken` (read as bold-date bullets already) are left out.
    """
    for number, line in enumerate(lines, 1):
        if number in taken or not (item := _LIST_ITEM.match(line)):
            continue
        found = st.leading_date(_plain(item.group("text")))
        if not found:
            continue
        when, what = found
        if not what:
            depth = len(item.group("indent").expandtabs())
            for follow in lines[number : number + 3]:
                child = _LIST_ITEM.match(follow)
                if child and len(child.group("indent").expandtabs()) > depth:
                    what = _plain(child.group("text"))
                break
        if what:
            yield number, when, what


def _heading_bullets(lines: list[str], taken: set[int]):
    """Yield (line number, when, what) for undated bullets under a dated heading (release-1.3, 2016:
    ``###Jun 20 - Jun 24`` over ``- release 1.3 Final``): such a bullet happens in its heading's week, which is
    dated by its first day. Only top-level bullets count; a bullet with a date of its own is read by
    `_dated_bullets`."""
    heading_date = None
    for number, line in enumerate(lines, 1):
        if heading := _HEADING.match(line):
            found = st.leading_date(_plain(heading.group("text")))
            heading_date = found[0] if found else None
            continue
        item = _LIST_ITEM.match(line)
        if heading_date is None or not item or item.group("indent") or number in taken:
            continue
        text = _plain(item.group("text"))
        if st.leading_date(text):
            continue
        # "Release 1.4 on Sept 20", "Feature Complete due end of day May 20 (slipped ... to May 23)": a date in
        # the bullet's words is its own (the last one: a slip names the new date after the old).
        inside = st.dates_in_text(text)
        if inside:
            a, b = inside[-1]
            words = re.sub(r"\s+(?:on|by|at)$", "", text[:a].rstrip(" ,(")) + " " + text[b:].lstrip(" ,)")
            yield number, text[a:b], words.strip()
        else:
            yield number, heading_date, text


def _other_release_sections(lines: list[str], version: str) -> set[int]:
    """Line numbers under a heading that names another release than `version` (up to the next heading)."""
    inside, found = False, set()
    for number, line in enumerate(lines, 1):
        if heading := _HEADING.match(line):
            named = _VERSION_IN_TEXT.search(_plain(heading.group("text")))
            inside = bool(named and f"{named.group(1)}.{int(named.group(2))}" != version)
        elif inside:
            found.add(number)
    return found


def _tldr(lines: list[str]):
    """Yield (line number, when, what, struck) for each date of the "tl;dr" paragraph (releases 1.10-1.13, 2018).

    The words of a date are those since the previous date or the start of its sentence ("Feature freeze is",
    "and ends on release day,"). Struck-through text is dropped first: a struck date was moved, and the date
    after it is the one that holds; `struck` lists what was struck before this date, for the report.
    """
    start = next((i for i, line in enumerate(lines) if _TLDR.search(line)), None)
    if start is None:
        return
    end = start
    while end + 1 < len(lines) and lines[end + 1].strip() and not _HEADING.match(lines[end + 1]):
        end += 1
    paragraph = " ".join(line.strip() for line in lines[start : end + 1])
    paragraph = _TLDR.sub(" ", paragraph)
    # Struck parts become a marker that no date pattern reads, so that their place is still known.
    paragraph, struck = st.strike_out(paragraph, marker="\ufffc")
    previous = 0
    for a, b in st.dates_in_text(paragraph):
        before = paragraph[previous:a]
        moved = [struck.pop(0) for _ in range(before.count("\ufffc")) if struck]
        before = before.replace("\ufffc", " ")
        sentence = _SENTENCE_END.split(before)[-1] if before.strip() else before
        previous = b
        yield start + 1, paragraph[a:b], st.clean_markdown(sentence), moved


def _read_entry(number, origin, what_text, when_text, wording, warnings, version=None) -> _Entry | None:
    kinds, exception_for = classify(what_text, version=version)
    if not kinds and not exception_for:
        return None
    try:
        when = st.parse_when(when_text)
    except ImportFailure as failure:
        failure.line = number
        failure.field = failure.field or "date"
        raise
    label = display_label(what_text) or st.clean_markdown(what_text)[:200]
    if when is None:
        if any(kind != MilestoneKind.OTHER for kind in kinds):
            warnings.append(
                ScheduleWarning(
                    number, f"{label!r} has no date ({st.clean_markdown(when_text) or 'empty'}); not imported"
                )
            )
        return None
    return _Entry(
        line=number,
        origin=origin,
        what=what_text,
        wording=wording[:SOURCE_TEXT_MAX],
        when=when,
        # "Code Freeze and Test Freeze" becomes two milestones, each under its own kind's name.
        kinds=[(kind, label if len(kinds) == 1 else str(MilestoneKind(kind).label)) for kind in kinds],
        exception_for=exception_for,
    )


def _merge(found: MilestoneData, other: MilestoneData, warnings: list[ScheduleWarning]) -> MilestoneData:
    """One milestone from a list entry and a table row (or two rows) naming the same thing.

    Preference: a time over a bare date; then the entry whose halves agree; then the summary list.
    A real disagreement (two different times, or dates more than a day apart) is reported.
    """

    def rank(item: MilestoneData):
        return (item.all_day, item.disagreements, item.origin != "list", item.line)

    best, worse = sorted([found, other], key=rank)
    differs = (
        best.at != worse.at if not (best.all_day or worse.all_day) else abs((best.at.date() - worse.at.date()).days) > 1
    )
    if differs:
        warnings.append(
            ScheduleWarning(
                worse.line,
                f"{best.label!r}: line {best.line} says {best.at:%Y-%m-%d %H:%M} UTC, line {worse.line} says "
                f"{worse.at:%Y-%m-%d %H:%M} UTC; using line {best.line}",
            )
        )
    return best


def parse_schedule(text: str, *, version_hint: str | None = None) -> Schedule:
    """Read one release schedule README. Raises ImportFailure when it has no version or a date that cannot be;
    a README without any dated milestone gives a Schedule with none and a warning.

    `version_hint` is the version from the folder name (``release-1.24`` -> ``"1.24"``), trusted over the title.
    """
    if not text.strip():
        raise ImportFailure("empty file")
    lines = text.splitlines()
    version, name, _title, warnings = _title_and_version(lines, version_hint)
    major, minor = check_version(version)

    entries: list[_Entry] = []
    # Lines under a heading about another release ("###1.5 Overview" in the 1.4 schedule) are not this one's.
    taken: set[int] = _other_release_sections(lines, version)
    for number, when_text, what_text in _bullets(lines):
        if number in taken:
            continue
        taken.add(number)
        wording = st.clean_markdown(lines[number - 1].strip().lstrip("-*+ "))
        if entry := _read_entry(number, "list", what_text, when_text, wording, warnings, version):
            entries.append(entry)
    for reader in (_dated_bullets, _heading_bullets):
        for number, when_text, what_text in reader(lines, taken):
            taken.add(number)
            wording = f"{when_text}: {what_text}"
            if entry := _read_entry(number, "list", what_text, when_text, wording, warnings, version):
                entries.append(entry)
    for number, when_text, what_text, struck in _tldr(lines):
        wording = f"{what_text} {when_text}".strip()
        if entry := _read_entry(number, "list", what_text, when_text, wording, warnings, version):
            # The sentence is no label ("and ends on release day,"): each kind is shown by its own name.
            entry.kinds = [(kind, str(MilestoneKind(kind).label)) for kind, _label in entry.kinds]
            entries.append(entry)
            if struck:
                warnings.append(
                    ScheduleWarning(number, f"{', '.join(struck)} struck through; {when_text} holds (moved)")
                )
    for number, what_text, when_text in _table_rows(lines):
        wording = f"{st.clean_markdown(what_text)} | {st.clean_markdown(when_text)}"
        if entry := _read_entry(number, "table", what_text, when_text, wording, warnings, version):
            entries.append(entry)
    if not entries:
        return Schedule(
            version=version,
            name=name,
            cycle_start=None,
            planned_release_date=None,
            source_url="",
            milestones=[],
            warnings=[*warnings, ScheduleWarning(None, "states no dated milestone; nothing imported")],
        )

    # The year of dates written without one comes from the cycle start (schedule_time.anchor_date).
    cycle = (
        next(
            (e.when.date for e in entries if any(k == MilestoneKind.CYCLE_START for k, _ in e.kinds)),
            None,
        )
        or min((e for e in entries), key=lambda e: e.line).when.date
    )
    explicit = [half.date for e in entries for half in e.when.halves if half.date and half.date.year is not None]
    try:
        explicit_dates = [partial.with_year(partial.year) for partial in explicit]
        anchor, warning = st.anchor_date(cycle, explicit_dates, major=major, minor=minor)
    except ImportFailure as failure:
        failure.field = "date"
        raise
    if warning:
        warnings.append(ScheduleWarning(None, warning))

    found: dict[tuple[str, str], MilestoneData] = {}
    deadlines: list[tuple[_Entry, datetime.datetime]] = []
    for entry in entries:
        hint_time, hint_zone, hint_eod = st.parse_hint(st.clean_markdown(entry.what))
        try:
            instant = st.resolve(entry.when, anchor=anchor, hint_time=hint_time, hint_zone=hint_zone, hint_eod=hint_eod)
            st.check_year(instant.at.year)  # also when the year was inferred (the cycle's, the release number's)
        except ImportFailure as failure:
            failure.line, failure.field = entry.line, failure.field or "date"
            raise
        warnings.extend(ScheduleWarning(entry.line, message) for message in instant.warnings)
        if entry.exception_for:
            deadlines.append((entry, instant.at))
        for kind, label in entry.kinds:
            item = MilestoneData(
                kind=kind,
                label=label,
                at=instant.at,
                all_day=instant.all_day,
                quoted_timezone=instant.quoted_timezone,
                source_text=entry.wording,
                line=entry.line,
                origin=entry.origin,
                disagreements=len(instant.warnings),
            )
            key = item.key
            found[key] = _merge(found[key], item, warnings) if key in found else item

    milestones = sorted(found.values(), key=lambda m: (m.at, m.kind, m.label))
    for entry, at in deadlines:
        for kind in entry.exception_for:
            target = next((m for m in milestones if m.kind == kind), None)
            if target is None:
                warnings.append(
                    ScheduleWarning(entry.line, f"exception deadline for a {kind} the schedule does not give")
                )
            elif at <= target.at:
                warnings.append(
                    ScheduleWarning(entry.line, f"exception deadline {at:%Y-%m-%d %H:%M} UTC is not after the freeze")
                )
            else:
                target.exception_deadline = at

    cycle_start = next((m.at.date() for m in milestones if m.kind == MilestoneKind.CYCLE_START), None)
    release_day = next((m for m in milestones if m.kind == MilestoneKind.RELEASE), None)
    planned = release_day.at.date() if release_day else None
    if cycle_start and planned and planned < cycle_start:
        raise ImportFailure(
            f"release day {planned} is before the cycle start {cycle_start}", line=release_day.line, field="date"
        )
    url = _THIS_DOCUMENT.search(text)
    return Schedule(
        version=version,
        name=name,
        cycle_start=cycle_start,
        planned_release_date=planned,
        source_url=url.group("url")[:200] if url else "",
        milestones=milestones,
        warnings=warnings,
    )


def check_version(version: str) -> tuple[int, int]:
    """(major, minor) of a version the Release model can hold, else an ImportFailure on the `version` field.

    A folder named ``release-1.99999999999999999999`` gave a version longer than `Release.version`
    and the database refused it mid-import. The rule is the format's: MAJOR.MINOR, each part a number of at most
    VERSION_PART_MAX, the whole within the field's max_length (read from the model, so the two cannot drift).
    """
    from releases.models import Release  # here, not at the top: the parser module stays importable on its own

    max_length = Release._meta.get_field("version").max_length
    major, _, minor = version.partition(".")
    fits = (
        len(version) <= max_length
        and major.isascii()
        and major.isdigit()
        and minor.isascii()
        and minor.isdigit()
        and int(major) <= VERSION_PART_MAX
        and int(minor) <= VERSION_PART_MAX
    )
    if not fits:
        shown = version if len(version) <= 40 else version[:40] + "…"
        raise ImportFailure(
            f"{shown!r} does not fit a release version (MAJOR.MINOR, each at most {VERSION_PART_MAX}, "
            f"{max_length} characters in all)",
            field="version",
        )
    return int(major), int(minor)


def version_from_path(path) -> str | None:
    """``.../release-1.24/README.md`` -> ``"1.24"``; None when the folder is not named like a release."""
    match = _FOLDER_VERSION.match(path.parent.name) if path.parent else None
    return f"{int(match.group(1))}.{int(match.group(2))}" if match else None
