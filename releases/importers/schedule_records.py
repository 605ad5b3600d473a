"""The records a release schedule README is read into, and the limits of what is kept."""

import datetime
import re
from dataclasses import dataclass, field

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


# -- a milestone's identity within its release ------------------------------------------------------------


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
