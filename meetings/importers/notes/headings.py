"""Meeting headings (`parse_heading`) and the dates they name (`match_date`, `year_from_filename`).

* Meeting headings (`parse_heading`): a line that starts with a date, at `#`..`######` or as a bare line, bold or
  not. A `#` heading may carry any text after the date, or name it after a short label ("## Weekly - Dec 13");
  a bare line only a bracketed/parenthesised note or a cancellation note, so a sentence that merely starts with
  a date is not a heading. The 2016-2018 Docs export appends an anchor ("# Dec 13 {#dec-13}"), dropped;
  stray export junk before a `#` heading's date ("## \\`1Oct 29, 2024") is skipped. A label before the date
  never starts with a month name: "## Dec [all dates] - canceled, next meeting Jan 2nd 2024" names no meeting
  day, and such a month-without-day heading is reported (`_undated_heading`), not guessed.
* Dates (`match_date`): "Dec 13", "Dec 13th, 2022", "Mar 28st, 2023" (any ordinal suffix), "Tuesday, January 4,
  2022", "4th February 2022", "2022-01-04", "1/4/2022"; "December 24 & 31, 2019" names several days. A heading
  without a year takes the file name's year (`year_from_filename`: `meeting-notes-2022.md`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from core.text import MONTH_NUMBERS

from .cancellation import _CANCELLED_WORDS
from .inline import clean_inline
from .records import MEETING_TITLE_MAX

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
