"""Parse a SIG's yearly meeting-note archive (kubernetes/community `sig-*/archive/meeting-notes-YYYY.md`).

Pure functions: text (and the file's name) in, plain dataclasses out, `ImportFailure` for a file that cannot be
imported at all. No Django ORM here, so every rule is testable without a database. The archives are Google Docs
exported to Markdown over ten years by many hands; each way they stray is handled by exactly one rule below:

* Meeting headings (`parse_heading`): a line that starts with a date, at `#`..`######` or as a bare line, bold or
  not. A `#` heading may carry any text after the date, or name it after a short label ("## Weekly - Dec 13");
  a bare line only a bracketed/parenthesised note or a cancellation note, so a sentence that merely starts with
  a date is not a heading. Lines inside HTML tables and
  code fences are never headings. The 2016-2018 Docs export appends an anchor ("# Dec 13 {#dec-13}"), dropped;
  stray export junk before a `#` heading's date ("## \\`1Oct 29, 2024") is skipped. A label before the date
  never starts with a month name: "## Dec [all dates] - canceled, next meeting Jan 2nd 2024" names no meeting
  day, and such a month-without-day heading is reported (`_undated_heading`), not guessed.
* Dates (`match_date`): "Dec 13", "Dec 13th, 2022", "Mar 28st, 2023" (any ordinal suffix), "Tuesday, January 4,
  2022", "4th February 2022", "2022-01-04", "1/4/2022". A heading without a year takes the file name's year
  (`meeting-notes-2022.md`), else the last year seen above it, else the file is refused. An impossible date
  ("Feb 30", year outside 2000-2099) is reported and its section dropped, not merged into the meeting above.
* Several days in one heading ("December 24 & 31, 2019"): one meeting per day, all with the heading's cancelled
  flag; the notes under the heading belong to the first day only (upstream uses this for holiday weeks).
* Duplicate dates in one file: merged into one meeting (items appended in file order), with a warning.
* Cancelled (`is_cancellation`): the heading says so ("[Canceled]", "Cancelled", "no meeting", "skipped"), or the
  first line of the meeting or a top-level item is only a cancellation note ("**Cancelled** - due to ...",
  "* [dawnchen] Cancelled", "Today's SIG Node was cancelled due to ...", "Cancelling due to lack of agenda",
  "No call (kubecon)", "no agenda"), possibly as one sentence of a short line ("Happy Holidays! No meeting 🎉");
  such a note is the meeting's state, not an agenda item.
* PR flow (`pr_flow`): before the first agenda item; "Total...: N" as text or table cells gives the open-PR
  total; "Created/Updated/Closed/Merged" labels followed (after ":" or a table cell border) by a number give the
  week's figures, in HTML or pipe tables, in any column order. When that part has none, tables and paragraphs
  (not bullets) later in the meeting with at least two figures supply them (`_late_flow_lines`): 2020-10-13 put
  the table after the agenda, 2021-03-09 and 2023-10-17 inside an item.
* Agenda items (`split_items`): each top-level bullet (`*`, `-`, `+`, `1.`, `1)`; tabs count as 4 spaces; "top
  level" is the least indented bullet of the meeting) starts one item; everything up to the next one is its body.
  Inside a retrospective item, top-level bullets without a presenter that follow a retro list header ("Good:",
  "_Things that went well_", "_AIs_") are that list's entries, not new items (the 2022 export flattens them).
  A heading or list mark repeated inside the bullet ("* # [a/b] Title", "- \\- text") is not part of its text.
  A bullet that is a message of a pasted Zoom chat ("From Mike Danese to Everyone: (10:42 AM)", 2018) is
  discussion of the item above it and joins that item's notes (`_CHAT_MESSAGE`).
* Presenters (`split_presenters`): a leading `[name/name]`, `[a, b & c]`, `[@name]` or `(name)`; `@handle` is a
  GitHub handle for sure, a single bare word may be one (the service links it only to a Person that exists).
  Without a leading mark, a trailing `[handle]` or `(@handle)` names the presenter (`split_trailing_presenters`,
  2016-2018: "Rktlet status (@alban)"). The 2024+ export escapes Markdown ("\\[minna\\] asking ..."): escapes
  are undone before matching, and a dash after the mark ("[harche] - Looking for reviews") is a separator, not
  part of the title.
* Title (`clean_inline`): the first line without presenters, Markdown links reduced to their text, emphasis,
  HTML and backslash escapes ("oom\\_score\\_adj") removed, at most 500 characters. Body: the nested notes as
  Markdown, dedented one level.
* KEP references (`kep_refs`): enhancements issues and PRs (also under the repository's pre-2018 name
  `kubernetes/features`, linked as enhancements), `keps/<sig>/<N>-name` links, "KEP-1287", "KEP 3063",
  "KEP #2008", "enhancements#N" (never "KEP 1.24"). Links (`item_links`): every GitHub issue and PR URL (any
  repository) in canonical form, plus KEP directory links.
* Releases (`release_mentions`): "1.25", "v1.26" in an item's title, except after another product's name ("Go
  1.19", "containerd 1.6", "runc 1.1"), which would otherwise invent Kubernetes releases.
* Retrospectives (`_RetroReader`): an item whose title says "retro"/"retrospective" with a version. Inside it:
  tallies ("1.22 release with 24 KEPs tracked and 13 merged", "1.23 was tracking 14 with 8 merged", "8 of 14
  implemented" under a line naming the release); a line that is only "<version> [release] retro [summary]:"
  switches the release the following lists belong to, until a list heading repeats; went-well / can-be-better /
  action-item lists (a "Suggested action:" entry is an action item wherever it sits); KEP tables under "Done (6):",
  "Removed from Milestone (17):" or "Deferred (N):".
* Bad input: binary/oversized/non-UTF-8 files are refused by `read_text`; a file with no dated heading ("not
  meeting notes") or ending inside an HTML table or code fence ("truncated") raises `ImportFailure` with the line.

This module stays one module, past the few hundred lines the others keep, because its parts read one grammar
from both ends. `split_items` tells a new agenda item from an entry of a retro list by the retrospective rules
(`retro_release_of`, `_section_header`); `_RetroReader` walks a retro item's lines by the document-structure
rules (`_bullet`, `_indent`, `_BlockTracker` for HTML tables and code fences) and the inline ones the agenda
items use (`clean_inline`, `kep_refs`, `release_mentions`, `owner_of`). Cut by topic, each part would import the
other's private rules, and the list above, one rule per quirk, would no longer be the index of one file.
"""

from __future__ import annotations

import datetime
import difflib
import html
import re
from dataclasses import dataclass, field
from pathlib import PurePath

from community.importers.people import PresenterRef
from core.importing import ImportFailure
from core.text import MONTH_NUMBERS
from releases.retro_records import KepRowRecord, RetroEntryRecord, RetroRecord

__all__ = [
    "AgendaItemRecord",
    "KepRowRecord",
    "MeetingRecord",
    "NotesRecord",
    "PresenterRef",
    "RetroEntryRecord",
    "RetroRecord",
    "clean_inline",
    "is_cancellation",
    "item_links",
    "item_releases",
    "kep_refs",
    "match_date",
    "parse_heading",
    "parse_meeting_notes",
    "pr_flow",
    "release_mentions",
    "split_presenters",
    "year_from_filename",
]

#: Largest value a PositiveIntegerField holds on every database; larger numbers in the notes are typos.
MAX_INT = 2**31 - 1
TITLE_MAX = 500
MEETING_TITLE_MAX = 300
PRESENTERS_MAX = 300
URL_MAX = 500

# -- records -------------------------------------------------------------------------------------------------


@dataclass
class AgendaItemRecord:
    order: int
    title: str
    presenters_text: str
    presenters: tuple[PresenterRef, ...]
    body: str
    kep_numbers: tuple[int, ...]
    links: tuple[str, ...]
    releases: tuple[str, ...]
    line: int


@dataclass
class MeetingRecord:
    date: datetime.date
    title: str
    line: int
    cancelled: bool = False
    recording_url: str = ""
    open_prs: int | None = None
    prs_created: int | None = None
    prs_updated: int | None = None
    prs_closed: int | None = None
    prs_merged: int | None = None
    items: list[AgendaItemRecord] = field(default_factory=list)
    retros: list[RetroRecord] = field(default_factory=list)


@dataclass
class NotesRecord:
    source: str
    meetings: list[MeetingRecord]
    warnings: list[str] = field(default_factory=list)


# -- dates and headings --------------------------------------------------------------------------------------

_MONTHS = MONTH_NUMBERS  # month prefixes -> numbers (core.text, shared with the schedule parser)
_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_WEEKDAY = r"(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6}\.?,?\s+)?"
_ORD = r"(?:st|nd|rd|th)?"
_DAYS = rf"(?P<days>\d{{1,2}}{_ORD}(?:\s*(?:&|and|/|\+)\s*\d{{1,2}}{_ORD})*)"
_YEAR = r"(?:,?\s*(?P<year>\d{4}))?"
_DATE_FORMS = (
    re.compile(rf"{_WEEKDAY}{_MONTH}\s*{_DAYS}{_YEAR}(?![\d:])", re.I),
    re.compile(rf"{_WEEKDAY}(?P<days>\d{{1,2}}){_ORD}(?:\s+of)?\s+{_MONTH}{_YEAR}(?![\d:])", re.I),
    re.compile(r"(?P<year>\d{4})[-/.](?P<mnum>\d{1,2})[-/.](?P<days>\d{1,2})(?!\d)"),
    re.compile(r"(?P<mnum>\d{1,2})/(?P<days>\d{1,2})/(?P<year>\d{4}|\d{2})(?!\d)"),
)
_HEADING_MARK = re.compile(r"^\s{0,3}(#{1,6})\s*")
_CANCELLED_WORDS = re.compile(r"\bcancel+(?:ed|ing)\b|\bcancel+ation\b|\bno\s+(?:meeting|call)\b|\bskipped\b", re.I)
# What may follow the date on a bare (non-#) heading line: nothing, a [note], a (note) or a cancellation note.
_BARE_REST = re.compile(
    r"^[\s\-–—:,.]*(?:\[[^\]]*\]|\([^)]*\)|(?:meeting\s+)?(?:cancel+ed|no\s+meeting|skipped)\b[^.]*)?[\s.!]*$", re.I
)


_DIGITS = re.compile(r"\d{1,2}")


@dataclass(frozen=True)
class DateMatch:
    """Dates at the start of a text: (year or None, month, day) per day named, and where the date ends."""

    parts: tuple[tuple[int | None, int, int], ...]
    end: int


def match_date(text: str, *, anywhere: bool = False) -> DateMatch | None:
    """The date(s) a text starts with (or, `anywhere`, contains as whole words), as written, or None."""
    for form in _DATE_FORMS:
        if anywhere:
            m = next((m for m in form.finditer(text) if m.start() == 0 or not text[m.start() - 1].isalnum()), None)
        else:
            m = form.match(text)
        if not m:
            continue
        groups = m.groupdict()
        month = _MONTHS[groups["month"][:3].lower()] if groups.get("month") else int(groups["mnum"])
        year = groups.get("year")
        year_value = None
        if year:
            year_value = int(year) + (2000 if len(year) == 2 else 0)
        days = [int(d) for d in _DIGITS.findall(groups["days"])]
        return DateMatch(tuple((year_value, month, day) for day in days), m.end())
    return None


@dataclass(frozen=True)
class Heading:
    parts: tuple[tuple[int | None, int, int], ...]
    title: str
    cancelled: bool


def _unwrap(text: str) -> str:
    """Drop bold/italic markers around and inside a heading line ("**Dec 13, 2022**")."""
    text = text.replace("**", "").replace("__", "")
    return text.strip().strip("*_").strip()


# "# Dec 13 {#dec-13}": the 2016-2018 Docs export appends the heading's anchor.
_ANCHOR = re.compile(r"\s*\{#[\w.-]*\}\s*$")
# "## \\`1Oct 29, 2024 (Canceled)": escaped backticks/quotes and a digit glued to the month name, left over
# from an edit in the 2024 export, before a `#` heading's date.
_STRAY_PREFIX = re.compile(r"^(?:\\?[`'\"])+\d?(?=[A-Za-z])")
_STARTS_WITH_MONTH = re.compile(rf"^{_MONTH}(?![a-z])", re.I)


def _heading_text(line: str) -> tuple[bool, str] | None:
    """(is a `#` heading, its text without marks, emphasis, anchor or stray prefix), or None for an indented line."""
    marked = _HEADING_MARK.match(line)
    if marked:
        return True, _STRAY_PREFIX.sub("", _ANCHOR.sub("", _unwrap(line[marked.end() :])))
    if line[:1].isspace() or not line.strip():
        return None
    return False, _ANCHOR.sub("", _unwrap(line))


def parse_heading(line: str) -> Heading | None:
    """A meeting heading (`## Dec 13th, 2022 [Canceled]` or a bare `Dec 13th, 2022`), or None."""
    found = _heading_text(line)
    if found is None:
        return None
    marked, text = found
    date = match_date(text)
    if date is None and marked and not _STARTS_WITH_MONTH.match(text):
        # "## SIG Node weekly meeting - Dec 13, 2016": a heading may name the date after a short label, but a
        # label that is itself a month ("## Dec [all dates] - ..., next meeting Jan 2nd 2024") names no day.
        date = match_date(text[:80], anywhere=True)
    if date is None:
        return None
    rest = text[date.end :]
    if not marked and not _BARE_REST.match(rest):
        return None
    title = clean_inline(text)[:MEETING_TITLE_MAX]
    return Heading(date.parts, title, bool(_CANCELLED_WORDS.search(rest)))


def _undated_heading(line: str) -> bool:
    """A `#` heading that starts with a month name but gives no day ("## Dec [all dates] - meetings canceled")."""
    found = _heading_text(line)
    return bool(found and found[0] and _STARTS_WITH_MONTH.match(found[1]) and parse_heading(line) is None)


def year_from_filename(source: str) -> int | None:
    """`meeting-notes-2022.md` -> 2022 (the only place some headings' year is written)."""
    found = re.findall(r"(?<!\d)(20\d{2})(?!\d)", PurePath(source).name) if source else []
    return int(found[-1]) if found else None


# -- inline text ---------------------------------------------------------------------------------------------

# Link text may hold backslash-escaped brackets ("[\\[PUBLIC\\] Design](url)", 2024 export);
# an escaped "\\[" opens no link.
_LINK = re.compile(
    r"!?(?<!\\)\[((?:[^\[\]\\]|\\.)*)\]\(\s*<?([^()\s>]*(?:\([^()\s]*\))?[^()\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)"
)
# A Markdown backslash escape of ASCII punctuation ("\\[minna\\]", "oom\\_score", "\\#123"): the character itself.
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_TAG = re.compile(r"<[^<>]{0,500}>")
_EMPHASIS = re.compile(r"(?<![\w*])[*_]([^*_\n]+)[*_](?![\w*])")
_SPACES = re.compile(r"\s+")


_MARKUP = frozenset("[<&*_~\\")


def _unescape(text: str) -> str:
    """Markdown backslash escapes undone: the 2024+ Docs export escapes every bracket, underscore and dash."""
    return _ESCAPE.sub(r"\1", text) if "\\" in text else text


def clean_inline(text: str) -> str:
    """One line of Markdown/HTML as plain text: links to their text, no emphasis, tags or escapes."""
    if _MARKUP.isdisjoint(text):
        return " ".join(text.split())
    text = _LINK.sub(lambda m: m.group(1).strip() or m.group(2), text)
    text = _TAG.sub(" ", text)
    text = html.unescape(text)
    text = _unescape(text)
    text = text.replace("**", "").replace("__", "").replace("~~", "").replace("\\", " ")
    text = _EMPHASIS.sub(r"\1", text)
    return _SPACES.sub(" ", text).strip()


_CANCEL_NOTICE = re.compile(
    # "Cancelled", "Meeting is canceled", "Today's SIG Node was cancelled", "Cancelling", "No meeting", "No call"...
    r"^(?:(?:the|today['’]?s|this\s+week['’]?s)\s+)?(?:sig[- ]\w+\s+)?(?:(?:weekly\s+)?(?:meeting|call)\s+)?"
    r"(?:(?:is|was|has\s+been|will\s+be)\s+)?(?:cancel+(?:ed|ing)|no\s+(?:meeting|call)(?:\s+this\s+week)?)"
    # ...followed by nothing, punctuation, emoji or a reason ("Cancelled, no agenda items", "No call (kubecon)"),
    # never by an object ("Cancelled the old plan", "Canceling next week's meeting" are agenda items).
    r"(?:[\W_]*$|\s*[-–—:,.!(]|\s+(?:due|for|because|as|this|today|since|no|in|until)\b)"
    # "no agenda" is a cancellation only when it is the whole note (2018-11-13).
    r"|^no\s+agenda(?:\s+items?)?[\W_]*$",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def is_cancellation(text: str) -> bool:
    """Is this line (presenters removed) only a note that the meeting did not take place?

    A short line may say it in a later sentence ("Happy Holidays! No meeting 🎉🎉", 2019-12-24).
    """
    _, _, rest = split_presenters(text)
    cleaned = clean_inline(rest).strip(" *_-")
    if _CANCEL_NOTICE.match(cleaned):
        return True
    return len(cleaned) <= 160 and any(
        _CANCEL_NOTICE.match(sentence.strip(" *_-")) for sentence in _SENTENCE_END.split(cleaned)[1:]
    )


# -- presenters ----------------------------------------------------------------------------------------------

_PRESENTER_BRACKET = re.compile(r"^\[([^\[\]]{1,200})\](?!\()\s*:?\s*")
_PRESENTER_PAREN = re.compile(r"^\(([^()]{1,80})\)\s*:?\s*")
_NOT_PRESENTERS = re.compile(
    r"(?:done|cut|soft\s+cut|keep|in[-\s]progress|review\s+in\s+progress|wip|tbd|todo|optional|deferred|postponed|"
    r"merged|moved|dropped|removed|punted|skip(?:ped)?|blocked|at\s+risk|tracked|fyi|announcements?|reminder|"
    r"update|discussion|demo|question|kep\b|pr\b|fixed|resolved|approved|lgtm|p\d\b)",
    re.I,
)
# "Isolated PID namespaces in non-docker runtimes [verb]", "Rktlet status (@alban)": the 2016-2018 notes name
# the presenter last. Brackets: one-word handles; parentheses: @handles only ("(5 mins)", "(WIP)" are not people).
_TRAILING_PRESENTERS = re.compile(r"\s*(?:\[([^\[\]]{1,80})\]|\(([^()]{0,80}@[^()]{0,80})\))\s*[.:]?\s*$")
_PRESENTER_SPLIT = re.compile(r"\s*(?:/|,|&|\+|;|\band\b)\s*", re.I)
_HANDLE = re.compile(r"^(@?)([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$")
_PRESENTER_DASH = re.compile(r"^[-–—]+\s+")


def split_trailing_presenters(title: str) -> tuple[str, tuple[PresenterRef, ...], str]:
    """A presenter mark at the end of a clean title -> (text as written, handles, the title without it)."""
    m = _TRAILING_PRESENTERS.search(title)
    if not m or m.start() == 0:
        return "", (), title
    written = (m.group(1) or m.group(2)).strip()
    if _NOT_PRESENTERS.match(written):
        return "", (), title
    refs: list[PresenterRef] = []
    for part in _PRESENTER_SPLIT.split(written):
        handle = _HANDLE.match(part.strip())
        if part.strip() and not (handle and (handle.group(1) or m.group(1))):
            return "", (), title
        if handle and handle.group(2).lower() not in {r.handle.lower() for r in refs}:
            refs.append(PresenterRef(handle.group(2), bool(handle.group(1))))
    if not refs:
        return "", (), title
    return written[:PRESENTERS_MAX], tuple(refs), title[: m.start()].rstrip(" -–—:")


def split_presenters(text: str) -> tuple[str, tuple[PresenterRef, ...], str]:
    """A leading presenter mark -> (text as written, handles, the rest of the line).

    `[a/b]`, `[a, b & c]`, `[@a]`: any content is kept as written, each part that is one word is a possible
    handle. `(a)`: only when every part is one word, so "(joining at 10:30) ..." is not a presenter.
    """
    # Links inside ("[[Paco](url)/Shiming]") or after the mark are reduced to their text; a struck-through
    # item ("~~[klueska] Bug fix~~") still has its presenter.
    stripped = _unescape(_LINK.sub(lambda m: m.group(1).strip() or m.group(2), text)).strip().lstrip("~").strip()
    m = _PRESENTER_BRACKET.match(stripped)
    if m and _NOT_PRESENTERS.match(m.group(1).strip()):
        return "", (), stripped  # "[Done] 281: DynamicKubeletConfig" is a status tag, not a person
    strict = False
    if not m:
        m = _PRESENTER_PAREN.match(stripped)
        strict = True
    if not m:
        return "", (), stripped
    written = _SPACES.sub(" ", m.group(1)).strip()
    refs: list[PresenterRef] = []
    for part in _PRESENTER_SPLIT.split(written):
        part = part.strip().strip("*_`")
        if not part:
            continue
        handle = _HANDLE.match(part)
        if handle:
            ref = PresenterRef(handle.group(2), bool(handle.group(1)))
            if ref.handle.lower() not in {r.handle.lower() for r in refs}:
                refs.append(ref)
        elif strict:
            return "", (), stripped
    if strict and not refs:
        return "", (), stripped
    # "[harche] - Looking for reviews": a dash after the mark separates it from the title.
    rest = _PRESENTER_DASH.sub("", stripped[m.end() :].lstrip("~ "))
    return written[:PRESENTERS_MAX], tuple(refs), rest


_AT_HANDLE = re.compile(r"(?<![\w.@/])@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))(?![\w.-]*\.\w)")


def owner_of(text: str) -> PresenterRef | None:
    """Who owns an action item: a leading `[handle]`, `AI(handle):`/`Action(handle):`, or the first `@handle`."""
    m = re.match(r"^\W*(?:ai|action(?:\s+item)?)\s*\(\s*@?([A-Za-z0-9][A-Za-z0-9-]{0,38})\s*\)", text, re.I)
    if m:
        return PresenterRef(m.group(1), "@" in text[: m.end()])
    _, refs, _ = split_presenters(text)
    if refs:
        return refs[0]
    m = _AT_HANDLE.search(text)
    return PresenterRef(m.group(1), True) if m else None


# -- references ----------------------------------------------------------------------------------------------

_KEP_TEXT = re.compile(r"\bKEP[\s-]*#?\s?(\d{1,6})(?!\d|\.\d)", re.I)
# kubernetes/features is the enhancements repository's name until 2018 (same issue numbers, GitHub redirects).
_ENH_LINK = re.compile(
    r"(?:github\.com/kubernetes/(?:enhancements|features)/(?:issues|pull)|(?<![\w.])features\.k8s\.io)/(\d{1,9})(?!\d)",
    re.I,
)
_FEATURES = re.compile(r"^https?://features\.k8s\.io/(\d{1,9})(?!\d)", re.I)
_ENH_DIR = re.compile(
    r"https?://(?:www\.)?github\.com/kubernetes/enhancements/(?:tree|blob)/[^/\s)\]]+/keps/(?:[^/\s)\]]+/)?"
    r"(\d{1,6})-[\w.-]*[\w]",
    re.I,
)
_ENH_SHORT = re.compile(r"(?<![\w/])(?:kubernetes/enhancements|k/enhancements|enhancements)#(\d{1,9})(?!\d)", re.I)
_URL = re.compile(r"https?://[^\s<>\"'\]\)]+", re.I)
_GH_ITEM = re.compile(r"^https?://(?:www\.)?github\.com/([\w.-]+)/([\w.-]+)/(issues|pull)/(\d{1,9})(?!\d)", re.I)


def kep_refs(text: str) -> list[int]:
    """KEP numbers a text refers to, in order of first mention.

    GitHub numbers issues and PRs in one sequence, and a KEP's number is its tracking issue's, so an
    enhancements PR number can only match a KEP that took that number; the caller links existing KEPs only.
    """
    found: dict[int, None] = {}
    lower = text.lower()
    # Cheap substring checks first: most lines mention no KEP, and case-insensitive scans are slow.
    patterns = [
        pattern
        for pattern, words in (
            (_ENH_LINK, ("enhancements/", "features.k8s.io", "kubernetes/features/")),
            (_ENH_DIR, ("enhancements/",)),
            (_ENH_SHORT, ("enhancements#",)),
            (_KEP_TEXT, ("kep",)),
        )
        if any(word in lower for word in words)
    ]
    for pattern in patterns:
        for m in pattern.finditer(text):
            number = int(m.group(1))
            if 0 < number <= MAX_INT:
                found.setdefault(number, None)
    return list(found)


def item_links(text: str) -> list[str]:
    """GitHub issue/PR URLs (canonical: no fragment, query or trailing slash) and KEP directory links."""
    found: dict[str, None] = {}
    for url in _URL.findall(text):
        url = url.rstrip(".,;:!?*_")
        m = _GH_ITEM.match(url)
        if m:
            org, repo, kind, number = m.groups()
            if org.lower() == "kubernetes" and repo.lower() == "features":
                repo = "enhancements"  # renamed in 2018; the old address redirects
            found.setdefault(f"https://github.com/{org}/{repo}/{kind.lower()}/{int(number)}", None)
            continue
        m = _FEATURES.match(url)
        if m:  # features.k8s.io/N redirects to the enhancements issue
            found.setdefault(f"https://github.com/kubernetes/enhancements/issues/{int(m.group(1))}", None)
            continue
        m = _ENH_DIR.match(url)
        if m:
            found.setdefault(m.group(0), None)
    return [url for url in found if len(url) <= URL_MAX]


_VERSION = re.compile(r"(?<![\w.])v?1\.(\d{1,2})(?!\d|\.\d)")
#: Products whose "1.N" versions are not Kubernetes releases (the word right before the version).
_OTHER_PRODUCTS = {
    "go",
    "golang",
    "containerd",
    "runc",
    "crun",
    "cri-o",
    "crio",
    "docker",
    "moby",
    "cgroup",
    "cgroups",
    "python",
    "ubuntu",
    "debian",
    "rhel",
    "kernel",
    "linux",
    "etcd",
    "coredns",
    "cadvisor",
    "kata",
    "gvisor",
    "helm",
    "kind",
    "crictl",
    "cri-tools",
    "oci",
    "nri",
    "cdi",
    "protobuf",
    "grpc",
    "api",
    "spec",
    "version",
}


def release_mentions(text: str) -> list[str]:
    """Kubernetes releases a text names ("1.25", "v1.26"), as "1.N", in order of first mention."""
    found: dict[str, None] = {}
    for m in _VERSION.finditer(text):
        before = text[: m.start()].rstrip().rsplit(None, 1)
        word = before[-1].lower().strip("([{:,") if before else ""
        if word in _OTHER_PRODUCTS:
            continue
        found.setdefault(f"1.{int(m.group(1))}", None)
    return list(found)


def item_releases(title: str) -> list[str]:
    """Releases an agenda item is about: the one whose retro it holds, else those its title names."""
    retro = retro_release_of(title)
    return [retro] if retro else release_mentions(title)


# -- PR flow -------------------------------------------------------------------------------------------------

_FLOW_LABELS = {
    "prs_created": r"created|opened|new",
    "prs_updated": r"updated",
    "prs_closed": r"closed(?:\s*\(?unmerged\)?)?|unmerged",
    "prs_merged": r"merged",
}
# A label is followed by ":" (and maybe a table cell border) or a cell border, then the number.
_FLOW = {
    name: re.compile(rf"(?<![\w-])(?:{label})\s*(?::+\s*(?:\|\s*)?|\|\s*)\**\s*(\d[\d,]*)(?![\d.])", re.I)
    for name, label in _FLOW_LABELS.items()
}
_FLOW["open_prs"] = re.compile(
    r"(?<![\w-])(?:total\b[^|:\d]{0,40}|open\s+(?:prs|pull\s+requests))\s*(?::+\s*(?:\|\s*)?|\|\s*)\**\s*(\d[\d,]*)",
    re.I,
)


_CELL_END = re.compile(r"</t[dh]\s*>", re.I)
_ROW_END = re.compile(r"</tr\s*>", re.I)
_LABEL = re.compile(r"(?<![\w-])([A-Za-z]{4,12})(\s*:)")
_RECORDING = re.compile(r"\b(?:recording|video)\b", re.I)


def _flatten(lines: list[str]) -> str:
    """Lines of Markdown/HTML as one plain string, table cells separated by " | "."""
    text = "\n".join(lines)
    text = _CELL_END.sub(" | ", text)
    text = _ROW_END.sub(" |\n", text)
    return "\n".join(clean_inline(line) for line in text.split("\n"))


_FLOW_WORDS = ("created", "opened", "updated", "closed", "unmerged", "merged", "total")


def _fix_label(m: re.Match) -> str:
    """A mistyped label ("fUpdated:") -> the label it is closest to; exact labels stay as they are."""
    word = m.group(1).lower()
    if word in _FLOW_WORDS:
        return m.group(0)
    close = difflib.get_close_matches(word, _FLOW_WORDS, n=1, cutoff=0.8)
    return close[0] + m.group(2) if close else m.group(0)


def pr_flow(lines: list[str]) -> dict[str, int]:
    """The open-PR total and the week's created/updated/closed/merged figures found in these lines."""
    text = _LABEL.sub(_fix_label, _flatten(lines))
    figures = {}
    for name, pattern in _FLOW.items():
        m = pattern.search(text)
        if m:
            value = int(m.group(1).replace(",", ""))
            if value <= MAX_INT:
                figures[name] = value
    return figures


def _recording(lines: list[str]) -> str:
    for line in lines:
        if _RECORDING.search(line):
            for url in _URL.findall(line):
                url = url.rstrip(".,;:!?*_")
                if len(url) <= URL_MAX:
                    return url
    return ""


# -- document structure --------------------------------------------------------------------------------------

_BULLET = re.compile(r"^(?P<indent> *)(?P<marker>[*+-]|\d{1,3}[.)])(?:[ ]+(?P<text>.*)|$)")
_RULE = re.compile(r"^\s*([*_-])(?:\s*\1){2,}\s*$")


def _bullet(line: str) -> re.Match | None:
    if _RULE.match(line):
        return None
    return _BULLET.match(line)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


@dataclass
class _Section:
    heading: Heading
    line: int
    dates: list[datetime.date]
    lines: list[tuple[int, str]] = field(default_factory=list)
    blocked: list[bool] = field(default_factory=list)


@dataclass
class _RawItem:
    line: int
    lines: list[tuple[int, str]]
    retro_release: str | None


class _BlockTracker:
    """Whether a line is inside an HTML table or a fenced code block (no headings or items there)."""

    def __init__(self):
        self.table_depth = 0
        self.table_line = 0
        self.fence_line = 0

    @property
    def inside(self) -> bool:
        return bool(self.table_depth or self.fence_line)

    def feed(self, no: int, line: str) -> bool:
        """Track `line`; True when it is, or is inside, a table or code block."""
        tag = "<" in line
        fence = "`" in line or "~" in line
        if not (tag or fence or self.table_depth or self.fence_line):
            return False  # the common case, kept cheap: ~20 000 lines a year of notes
        stripped = line.strip()
        was_inside = self.inside
        if fence and (
            (stripped.startswith("```") and stripped.count("```") % 2 == 1)
            or (stripped.startswith("~~~") and stripped.count("~~~") % 2 == 1)
        ):
            self.fence_line = 0 if self.fence_line else no
            return True
        if self.fence_line:
            return True
        if not tag:
            return was_inside
        lower = stripped.lower()
        opened = lower.count("<table")
        closed = lower.count("</table")
        if opened and not self.table_depth:
            self.table_line = no
        self.table_depth = max(0, self.table_depth + opened - closed)
        return was_inside or bool(opened or closed)


def parse_meeting_notes(text: str, *, source: str = "", default_year: int | None = None) -> NotesRecord:
    """Parse one archive file's text; `source` (the file name) supplies the year headings leave out."""
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
    for section in sections:
        if not section.dates:
            continue
        for meeting in _parse_section(section, name, warnings):
            previous = meetings.get(meeting.date)
            if previous is None:
                meetings[meeting.date] = meeting
            else:
                warnings.append(
                    f"{name}:{meeting.line}: {meeting.date} already has a meeting at line {previous.line}; merged"
                )
                _merge(previous, meeting)
    return NotesRecord(source=name, meetings=list(meetings.values()), warnings=warnings)


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


def split_items(
    lines: list[tuple[int, str]], blocked: list[bool] | None = None
) -> tuple[list[tuple[int, str]], list[_RawItem]]:
    """A meeting's lines -> (lines before the first agenda item, one raw item per top-level bullet).

    `blocked[i]` says whether line i is in a table or code block (computed here when not given).
    """
    if blocked is None:
        blocks = _BlockTracker()
        blocked = [blocks.feed(no, line) for no, line in lines]
    bullets = [None if inside else _bullet(line) for (_, line), inside in zip(lines, blocked, strict=True)]
    top = min((_indent(m.group(0)) for m in bullets if m), default=0)
    preamble: list[tuple[int, str]] = []
    items: list[_RawItem] = []
    absorb = False
    for (no, line), inside, m in zip(lines, blocked, bullets, strict=True):
        if inside:
            (items[-1].lines if items else preamble).append((no, line))
            continue
        if m and _indent(line) <= top + 1:
            content = (m.group("text") or "").strip()
            current = items[-1] if items else None
            if current and _CHAT_MESSAGE.match(clean_inline(content)):
                current.lines.append((no, line))
                continue
            if current and current.retro_release:
                header = _section_header(content)
                if (absorb and not split_presenters(content)[0]) or header:
                    current.lines.append((no, line))
                    absorb = absorb or bool(header)
                    continue
            title = clean_inline(split_presenters(_INNER_MARK.sub("", content))[2])
            items.append(_RawItem(no, [(no, line)], retro_release_of(title)))
            absorb = False
            continue
        if not items:
            preamble.append((no, line))
            continue
        items[-1].lines.append((no, line))
        if items[-1].retro_release and not m and _section_header(line.strip()):
            absorb = True
    return preamble, items


# A Zoom chat pasted under an item, a bullet per message: "From Mike Danese to Everyone: (10:42 AM)" (2018), or
# Zoom's saved-chat lines "10:05:33 From Jane Doe : text", "00:12:34 From A to Everyone:".
_CHAT_MESSAGE = re.compile(
    r"^(?:\d{1,2}:\d{2}(?::\d{2})?\s+From\s+[^:\n]{1,120}:"
    r"|From\s+[^:\n]{1,120}?\s+to\s+[^:\n]{1,120}?:\s*\(\d{1,2}:\d{2}(?::\d{2})?\s*[AP]\.?M\.?\))",
    re.I,
)

# "* # \\[danwinship/surya\\] Redesigning ...", "- \\- [link](...)": a heading or list mark inside the bullet (2024).
_INNER_MARK = re.compile(r"^(?:(?:#{1,6}|\\?[-*+])\s+)+")


def _make_item(raw: _RawItem, order: int) -> AgendaItemRecord | None:
    no, first = raw.lines[0]
    m = _bullet(first)
    content = (m.group("text") or "").strip() if m else first.strip()
    presenters_text, presenters, rest = split_presenters(_INNER_MARK.sub("", content))
    body_lines = [line for _, line in raw.lines[1:]]
    body = _dedent_body(body_lines)
    title = clean_inline(rest)
    if not presenters_text:
        presenters_text, presenters, title = split_trailing_presenters(title)
    if not title and body:
        title = clean_inline(next(line for line in body.splitlines() if line.strip()).lstrip(" *+-"))
    if not title and not presenters_text:
        return None
    title = title or presenters_text
    if len(title) > TITLE_MAX:
        title = title[: TITLE_MAX - 1] + "…"
    everything = "\n".join([content, body])
    releases = item_releases(title)
    return AgendaItemRecord(
        order=order,
        title=title,
        presenters_text=presenters_text,
        presenters=presenters,
        body=body,
        kep_numbers=tuple(kep_refs(everything)),
        links=tuple(item_links(everything)),
        releases=tuple(releases),
        line=no,
    )


def _dedent_body(lines: list[str]) -> str:
    """Nested notes as Markdown: dedented by the first nested bullet's indent, blank runs collapsed."""
    nonblank = [line for line in lines if line.strip()]
    if not nonblank:
        return ""
    shift = _indent(nonblank[0]) if _bullet(nonblank[0]) else 0
    out: list[str] = []
    for line in lines:
        if not line.strip():
            if out and out[-1] != "":
                out.append("")
            continue
        out.append(line[min(shift, _indent(line)) :])
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out)


# -- retrospectives ------------------------------------------------------------------------------------------

_V = r"v?1\.\d{1,2}(?!\d|\.\d)"


def _version(text: str) -> str:
    m = re.search(r"1\.(\d{1,2})", text)
    return f"1.{int(m.group(1))}"


_RETRO_WORD = re.compile(r"\bretro(?:spective)?s?\b", re.I)
_VERSION_RETRO = re.compile(rf"({_V})(?:\s+[\w-]+){{0,2}}?\s+retro", re.I)
_RETRO_VERSION = re.compile(rf"retro(?:spective)?s?\b(?:\s+[\w-]+){{0,2}}?\s+({_V})", re.I)


def retro_release_of(title: str) -> str | None:
    """The release whose retro an agenda item holds, from its title ("1.24 retro", "retrospective for 1.22")."""
    if "retro" not in title.lower() or not _RETRO_WORD.search(title):
        return None
    m = _VERSION_RETRO.search(title) or _RETRO_VERSION.search(title)
    if m:
        return _version(m.group(1))
    mentions = release_mentions(title)
    return mentions[0] if mentions else None


_SECTION_HEADERS = (
    ("went_well", re.compile(r"^(?:things\s+that\s+|what\s+)?went\s+(?:well|right)|^(?:the\s+)?good|^positives?$")),
    (
        "to_improve",
        re.compile(
            r"^(?:things\s+that\s+|what\s+)?(?:can|could|should)(?:\s+have)?\s+(?:be(?:en)?|gone|go)\s+better"
            r"|did\s*n[o'’]?t\s+(?:go|went)\s+(?:so\s+)?well|^(?:what\s+)?(?:to|could|can\s+we)\s+improve"
            r"|^needs?\s+improvement|^not\s+so\s+good|^(?:the\s+)?bad|^challenges$"
        ),
    ),
    ("action_item", re.compile(r"^(?:ais?|action\s+items?|actions|suggested\s+actions|next\s+steps)$")),
)


def _section_header(text: str) -> str | None:
    """The retro list a header line opens ("Good:", "_Things that went well_", "_AIs_"), or None."""
    m = _bullet(text)
    if m:
        text = m.group("text") or ""
    cleaned = clean_inline(text).strip().rstrip(":").strip().lower()
    if not cleaned or len(cleaned) > 60:
        return None
    for category, pattern in _SECTION_HEADERS:
        if pattern.search(cleaned):
            return category
    return None


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
_STATUS_HEADINGS = (
    ("done", re.compile(r"^(?:done|completed|shipped|merged|implemented)$", re.I)),
    ("removed_from_milestone", re.compile(r"^(?:removed(?:\s+from\s+(?:the\s+)?milestone)?|missed)$", re.I)),
    ("deferred", re.compile(r"^deferred$", re.I)),
)
_TYPES = {
    "graduating": "graduating",
    "net new": "net_new",
    "new": "net_new",
    "major change": "major_change",
    "deprecation": "deprecation",
    "removal": "removal",
}
_STAGES = {
    "alpha": "alpha",
    "beta": "beta",
    "stable": "stable",
    "ga": "stable",
    "deprecation": "deprecation",
    "removal": "removal",
}


def action_status(text: str) -> str:
    """An action item's follow-through as the notes state it; "open" unless they say otherwise."""
    lower = text.lower()
    if re.search(r"^\s*~~.*~~\s*$", text) or re.search(r"\((?:done|completed)\)|\bdone\s*[:!✅]|✅|\[x\]", lower):
        return "done"
    if re.search(r"\b(?:dropped|won'?t\s+do|wontfix|abandoned)\b", lower):
        return "dropped"
    if re.search(r"\bin[\s-]progress\b|\(wip\)|\[wip\]", lower):
        return "in_progress"
    return "open"


def _status_heading(text: str) -> tuple[str, int | None] | None:
    m = re.match(r"^(.*?)\s*(?:\(\s*(\d+)\s*\))?\s*:?$", clean_inline(text).strip())
    if not m:
        return None
    for status, pattern in _STATUS_HEADINGS:
        if pattern.match(m.group(1).strip()):
            return status, int(m.group(2)) if m.group(2) else None
    return None


def _table_rows(lines: list[tuple[int, str]]) -> list[tuple[int, list[str], list[str]]]:
    """(line, cell texts, cell hrefs) per row of an HTML table or a pipe table."""
    rows = []
    if lines and lines[0][1].lstrip().startswith("|"):
        for no, line in lines:
            cells = line.strip().strip("|").split("|")
            if all(re.fullmatch(r"\s*:?-{2,}:?\s*", c) for c in cells):
                continue
            rows.append((no, [clean_inline(c) for c in cells], [" ".join(_URL.findall(c)) for c in cells]))
        return rows
    start = lines[0][0] if lines else 0
    joined = "\n".join(line for _, line in lines)
    for row in re.finditer(r"<tr\b[^>]*>(.*?)</tr\s*>", joined, re.S | re.I):
        cells = re.findall(r"<t[dh]\b[^>]*>(.*?)</t[dh]\s*>", row.group(1), re.S | re.I)
        texts = [clean_inline(re.sub(r"<(?:p|br)\b[^>]*>", " ", c, flags=re.I)) for c in cells]
        hrefs = [" ".join(re.findall(r"href=\"([^\"]+)\"", c)) for c in cells]
        rows.append((start + joined.count("\n", 0, row.start()), texts, hrefs))
    return rows


def _kep_table(lines, status, release, name, warnings) -> list[KepRowRecord]:
    """Rows of a retro KEP table: number (cell or issue link), name, type ("Stage Status"), stage, assignee."""
    rows = _table_rows(lines)
    columns: dict[str, int] = {}
    if rows and not any(re.fullmatch(r"#?\d+", c) for c in rows[0][1]):
        for i, cell in enumerate(rows[0][1]):
            label = cell.lower()
            if "number" in label or "issue" in label or label in {"#", "kep", "kep #", "id"}:
                columns.setdefault("number", i)
            elif label in {"name", "title", "kep title", "enhancement", "kep name"}:
                columns.setdefault("title", i)
            elif label in {"stage status", "type", "kind"}:
                columns.setdefault("type", i)
            elif label in {"stage", "target stage", "target"}:
                columns.setdefault("stage", i)
            elif label in {"assignee", "owner", "contact", "author", "assigned"}:
                columns.setdefault("assignee", i)
        if columns:
            rows = rows[1:]
    records = []
    for no, cells, hrefs in rows:

        def cell(key, cells=cells):
            i = columns.get(key)
            return cells[i] if i is not None and i < len(cells) else ""

        number = None
        text = cell("number")
        candidates = [text] if "number" in columns else cells
        for i, value in enumerate(candidates):
            m = re.fullmatch(r"#?(\d{1,9})", value.strip())
            refs = kep_refs(hrefs[i] if "number" not in columns and i < len(hrefs) else "")
            if m or refs:
                number = int(m.group(1)) if m else refs[0]
                break
        if number is None or not 0 < number <= MAX_INT:
            if any(cells):
                warnings.append(f"{name}:{no}: {release} KEP table row without a KEP number skipped")
            continue
        title = cell("title") or next((c for c in cells if re.search(r"[A-Za-z]", c)), "")
        kind = _TYPES.get(cell("type").lower().strip(" +*"), "")
        stage = _STAGES.get(cell("stage").lower().strip(" +*"), "")
        assignee = cell("assignee").strip().lstrip("@")
        records.append(
            KepRowRecord(
                number=number,
                title=title[:300],
                status=status,
                type=kind,
                target_stage=stage,
                assignee=assignee if _HANDLE.match(assignee) else "",
                line=no,
            )
        )
    return records


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
