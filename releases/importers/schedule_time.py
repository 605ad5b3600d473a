"""Every rule for reading a date or time out of a sig-release schedule, in one place.

The release team writes times many ways (kubernetes/sig-release `releases/release-1.NN/README.md`):

- ``02:00 UTC Friday 4th February 2022 / 18:00 PST Thursday 3rd February 2022`` — a UTC half and a
  Pacific half; sometimes a third (``02:00 BST ...``). **The UTC half is trusted**; a half that names a
  different instant is reported as a warning.
- ``17:00 UTC / 09:00 PDT Tuesday 13th December`` — a half with a time but no date borrows the date of
  a sibling half (the UTC date nearest to what the sibling says).
- ``Thur May 13`` with ``(23:59 PDT)`` or ``(EOD PST)`` in the row's label — the label supplies the
  time. **EOD means 23:59** in the quoted zone.
- ``Thursday 9th October 2025 (AoE) / Friday 10th October 2025, 12:00 UTC`` — **a date quoted AoE
  (Anywhere on Earth, UTC−12) means the end of that day**: 24:00 UTC−12, i.e. 12:00 UTC the next day,
  exactly as the schedules' own "Note on AoE deadlines" explains.
- ``PT``/``Pacific`` follow America/Los_Angeles (PST or PDT as the date requires). An explicit
  ``PST``/``PDT`` is taken literally as UTC−8/UTC−7 and a warning says when it is the wrong one for
  that date (1.26 wrote "17:00 PDT" for November, when California was on PST).
- ``Monday, April 26th`` / ``Mon 6`` in a month column — no year at all (releases 1.18–1.22): the year
  comes from the release cycle (see `anchor_date` and `year_near`).
- ``Tueday 11th April 2023`` or a weekday that disagrees with the date: **the date wins**, with a
  warning. Ordinal suffixes are optional and may be wrong (``28st``, ``21th``).
- ``Friday 17th October 2025 at 12:00am anywhere on Earth time (12:00 UTC)`` — a parenthesised time is
  one more half; "anywhere on Earth" is AoE.
- A date without any time is an all-day milestone: midnight UTC of that date, ``all_day`` set.
- ``~~Tuesday, September 25, 2018~~ **Thursday, September 27, 2018**`` or ``~~25~~ moved to **27**`` (release-1.12,
  2018): **a struck-through date was moved**; the struck text is not read (``<del>``/``<s>`` alike), the date
  that follows wins (see `strike_out`).
- ``July 5 (Weds) coding start`` / ``Mon Oct 2: Start of release cycle`` (releases 1.7–1.9, 2017): a plain bullet
  that starts with a date, the weekday before it or in parentheses after it (see `leading_date`).
- Years are checked, written or inferred: a number where the year goes (``6th February 99999``) must be a year
  between `FIRST_YEAR` and `LAST_YEAR`, or the file is skipped naming the line (otherwise 99999 is not read as a
  year at all and the date lands in a year inferred from the release number).

Nothing here touches the database. Errors are `ImportFailure` without a line; the caller adds it.
"""

import datetime
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from core.importing import ImportFailure
from core.text import MONTH_NUMBERS, one_line
from releases.rules import AOE, PACIFIC

UTC = datetime.UTC

MONTHS = MONTH_NUMBERS
WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
WEEKDAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

#: Zones as quoted -> (fixed UTC offset in hours, or a time zone), and how we record the quote.
ZONES: dict[str, tuple[float | datetime.tzinfo, str]] = {
    "UTC": (0, "UTC"),
    "GMT": (0, "UTC"),
    "Z": (0, "UTC"),
    "PST": (-8, "PT"),
    "PDT": (-7, "PT"),
    "PT": (PACIFIC, "PT"),
    "PACIFIC": (PACIFIC, "PT"),
    "AOE": (AOE, "AoE"),
    "BST": (1, "BST"),
    "CET": (1, "CET"),
    "CEST": (2, "CEST"),
    "EST": (-5, "ET"),
    "EDT": (-4, "ET"),
    "ET": (ZoneInfo("America/New_York"), "ET"),
    "IST": (5.5, "IST"),
}
_UTC_NAMES = {"UTC", "GMT", "Z"}

_MONTH_WORD = (
    r"(?P<{name}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ORD = r"(?:st|nd|rd|th)?"
_WEEKDAY_WORD = r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*"
# "24th - Friday 28th October 2022" (a range: its first day), "4th February 2022", "6 Jan".
_DAY_MONTH = re.compile(
    rf"\b(?P<day>\d{{1,2}}){_ORD}(?:\s*(?:-|to|&)\s*(?:{_WEEKDAY_WORD},?\s+)?\d{{1,2}}{_ORD})?\s+(?:of\s+)?"
    + _MONTH_WORD.format(name="month")
    + r"(?![a-z])",
    re.IGNORECASE,
)
# "February 4th, 2022", "Oct 6th", "May 3-7", "August 23, 2021".
_MONTH_DAY = re.compile(
    r"(?<![a-z])" + _MONTH_WORD.format(name="month") + rf"\s+(?P<day>\d{{1,2}}){_ORD}(?![\d:])",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?<![\d.])(?P<year>(?:19|20)\d\d)(?![\d.:])")
# Whatever number is written where a date's year goes ("6th February 99999", "February 6th, 202"): it is the year,
# and must be a plausible one, rather than a date "without a year" that the cycle then places.
_YEAR_AFTER_DATE = re.compile(r"\s*,?\s*(?P<year>\d{3,})(?![\d:])")
#: Years a schedule may name: from the project's first year to the last of the century `_YEAR` reads.
FIRST_YEAR, LAST_YEAR = 2014, 2099
_WEEKDAY = re.compile(rf"(?<![a-z])(?P<weekday>{_WEEKDAY_WORD})(?![a-z])", re.IGNORECASE)
_TIME = re.compile(
    r"(?<![\d.:])(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<ampm>[ap]\.?m\.?(?![a-z]))?(?![\d:])",
    re.IGNORECASE,
)
_ZONE = re.compile(
    r"(?<![A-Za-z])(?P<zone>UTC|GMT|PST|PDT|PT|Pacific|AoE|AOE|aoe|[Aa]nywhere on [Ee]arth"
    r"|BST|CEST|CET|EST|EDT|ET|IST|Z)(?![A-Za-z])"
)
# "(12:00 UTC)" after another time is a second half, like "... / 12:00 UTC".
_TIME_IN_PARENTHESES = re.compile(r"\(([^()]*\d{1,2}:\d{2}[^()]*)\)")
_EOD = re.compile(r"(?<![A-Za-z])(?:EOD|end of day)(?![A-Za-z])", re.IGNORECASE)
_HALF_SPLIT = re.compile(r"\s+/\s*|\s*/\s+")
_MARKDOWN_LINK = re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])?")
_HTML_TAG = re.compile(r"<[^>]+>")
_EMPHASIS = re.compile(r"(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)")
_DASHES = re.compile(r"[\u2012\u2013\u2014\u2015\u2212]")  # figure/en/em dashes, minus sign
_STRUCK = re.compile(r"~~(?P<a>.+?)~~|<(?P<tag>del|s|strike)>(?P<b>.*?)</(?P=tag)>", re.IGNORECASE | re.DOTALL)
# A date at the start of a text: optional weekday, "July 5" / "5th July" / "Sept 1st", an optional year, an optional
# "(Weds)" after it. The weekday alternatives accept the schedules' abbreviations ("Weds", "Thurs", "Tues").
_LEADING_DATE = re.compile(
    rf"^\s*(?:{_WEEKDAY_WORD}\.?,?\s+)?"
    rf"(?:{_MONTH_WORD.format(name='m1')}\s+\d{{1,2}}{_ORD}|\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MONTH_WORD.format(name='m2')})"
    rf"(?![a-z\d])(?:,?\s+(?:19|20)\d\d(?!\d))?(?:\s*\(\s*{_WEEKDAY_WORD}\.?\s*\))?",
    re.IGNORECASE,
)
# Any date in running text (the "tl;dr" sentence), with the weekday before it and the year after it.
_DATE_IN_TEXT = re.compile(
    rf"(?<![a-z\d])(?:{_WEEKDAY_WORD}\.?,?\s+)?"
    rf"(?:{_MONTH_WORD.format(name='m1')}\s+\d{{1,2}}{_ORD}|\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MONTH_WORD.format(name='m2')})"
    rf"(?![a-z\d])(?:,?\s+(?:19|20)\d\d(?!\d))?",
    re.IGNORECASE,
)


def clean_markdown(text: str) -> str:
    """Schedule text without Markdown decoration: links become their text, emphasis and dashes are plain."""
    text = _MARKDOWN_LINK.sub(r"\1", text)
    text = _HTML_TAG.sub(" ", text)
    text = text.replace("**", "").replace("__", "").replace("`", "")
    text = _EMPHASIS.sub("", text)
    text = _DASHES.sub("-", text)
    # One line, no control or bidi characters: the text becomes milestone labels, which go into email subjects
    # and must pass Milestone.clean.
    return one_line(text)


def strike_out(text: str, *, marker: str = " ") -> tuple[str, list[str]]:
    """`text` with each struck-through part replaced by `marker`, and those parts (plain): a struck date was
    moved, not kept."""
    struck: list[str] = []

    def drop(match: re.Match) -> str:
        struck.append(clean_markdown(match.group("a") or match.group("b") or ""))
        return marker

    return _STRUCK.sub(drop, text), struck


def leading_date(text: str) -> tuple[str, str] | None:
    """(the date, the rest) when `text` (plain, no Markdown) starts with a date; else None.

    ``Aug 1 (Tues): Feature Freeze`` -> ``("Aug 1 (Tues)", "Feature Freeze")``. The rest loses a leading separator
    (colon, dash); it may be empty when the bullet's words are on the lines below it (release-1.5).
    """
    match = _LEADING_DATE.match(text)
    if not match:
        return None
    rest = re.sub(r"^\s*[:,-]?\s*", "", text[match.end() :])
    return match.group(0).strip(), rest.strip()


def dates_in_text(text: str) -> list[tuple[int, int]]:
    """Spans of every date written in running text (``Monday, July 2nd, 2018``, ``Wednesday, March 21st``)."""
    return [match.span() for match in _DATE_IN_TEXT.finditer(text)]


@dataclass(frozen=True)
class PartialDate:
    """A calendar date as written; `year` is None when the schedule leaves it out."""

    month: int
    day: int
    year: int | None = None
    weekday: int | None = None  # 0 = Monday, as the schedule names it (may be wrong)

    def with_year(self, year: int) -> datetime.date:
        try:
            return datetime.date(year, self.month, self.day)
        except ValueError as exc:
            raise ImportFailure(f"impossible date: day {self.day} of month {self.month} in {year}") from exc


@dataclass(frozen=True)
class ClockTime:
    """A time of day as quoted, with its zone (a key of `ZONES`) or None when no zone is given."""

    hour: int
    minute: int
    zone: str | None = None


@dataclass(frozen=True)
class Half:
    """One half of a "UTC / Pacific" pair (or the only half)."""

    text: str
    date: PartialDate | None
    time: ClockTime | None
    zone: str | None
    eod: bool = False


@dataclass(frozen=True)
class When:
    """What a "When" cell or a summary bullet's bold part says, before the year and zone are settled."""

    text: str
    halves: tuple[Half, ...]

    @property
    def date(self) -> PartialDate | None:
        """The first date the text gives."""
        return next((half.date for half in self.halves if half.date), None)


@dataclass(frozen=True)
class Instant:
    """A resolved milestone time."""

    at: datetime.datetime
    all_day: bool
    quoted_timezone: str
    warnings: tuple[str, ...] = ()


def _zone_key(word: str) -> str:
    word = word.upper()
    return "AOE" if word.startswith("ANYWHERE") else word


def parse_date(text: str) -> PartialDate | None:
    """The first "day month [year]" or "month day[, year]" in `text`, with its weekday if named."""
    candidates = [m for m in (_DAY_MONTH.search(text), _MONTH_DAY.search(text)) if m]
    if not candidates:
        return None
    match = min(candidates, key=lambda m: m.start())
    month = MONTHS[match.group("month")[:3].lower()]
    day = int(match.group("day"))
    if not 1 <= day <= 31:
        raise ImportFailure(f"impossible day {day} in {text!r}")
    if written := _YEAR_AFTER_DATE.match(text, match.end()):
        year = check_year(written.group("year"))
    else:
        year_match = _YEAR.search(text, match.end()) or _YEAR.search(text)
        year = check_year(year_match.group("year")) if year_match else None
    weekday_match = _WEEKDAY.search(text[: match.start()]) or _WEEKDAY.search(text)
    weekday = WEEKDAYS[weekday_match.group("weekday")[:3].lower()] if weekday_match else None
    partial = PartialDate(month=month, day=day, year=year, weekday=weekday)
    # Reject 31 April and 30 February even before the year is known (29 February waits for a year).
    partial.with_year(year if year is not None else 2024)
    return partial


def check_year(year: int | str) -> int:
    """`year` as a number when it lies between FIRST_YEAR and LAST_YEAR; else an ImportFailure saying so."""
    digits = str(year)
    if len(digits) != 4 or not FIRST_YEAR <= int(digits) <= LAST_YEAR:
        shown = digits if len(digits) <= 12 else digits[:12] + "…"
        raise ImportFailure(f"year {shown} is not between {FIRST_YEAR} and {LAST_YEAR}")
    return int(digits)


def _strip_dates(text: str) -> str:
    """`text` without its date, weekday and year, so that day numbers are not read as hours."""
    text = _DAY_MONTH.sub(" ", text)
    text = _MONTH_DAY.sub(" ", text)
    text = _YEAR.sub(" ", text)
    return _WEEKDAY.sub(" ", text)


def parse_time(text: str) -> ClockTime | None:
    """A clock time in `text` ("02:00 UTC", "10:00am PDT", "(23:59 PDT)", "16:00 UTC"), or None.

    A bare number counts as a time only with a colon or am/pm, so week numbers and days are never hours.
    """
    rest = _strip_dates(text)
    for match in _TIME.finditer(rest):
        if match.group("minute") is None and match.group("ampm") is None:
            continue
        hour, minute = int(match.group("hour")), int(match.group("minute") or 0)
        ampm = (match.group("ampm") or "").lower()[:1]
        if ampm:
            if not 1 <= hour <= 12:
                raise ImportFailure(f"impossible time {match.group(0).strip()!r}")
            hour = hour % 12 + (12 if ampm == "p" else 0)
        if hour > 23 or minute > 59:
            raise ImportFailure(f"impossible time {match.group(0).strip()!r}")
        zone = _ZONE.search(rest, match.end())
        zone_key = _zone_key(zone.group("zone")) if zone and zone.start() - match.end() <= 3 else None
        return ClockTime(hour=hour, minute=minute, zone=zone_key)
    return None


def parse_hint(text: str) -> tuple[ClockTime | None, str | None, bool]:
    """A time, zone and end-of-day flag stated in a row's label: "(23:59 PDT)", "(EOD PST)", "at 10:00 AM (PDT)"."""
    time = parse_time(text)
    zone = _ZONE.search(_strip_dates(text))
    zone_key = _zone_key(zone.group("zone")) if zone else None
    if time and time.zone is None and zone_key:
        time = ClockTime(time.hour, time.minute, zone_key)
    eod = bool(_EOD.search(text))
    if not time and not eod:
        return None, None, False
    return time, zone_key, eod


def parse_when(text: str) -> When | None:
    """Split a schedule's time text into its halves and read each; None when it gives no date at all ("TBC")."""
    cleaned = clean_markdown(strike_out(text)[0])
    halves = []
    for part in _HALF_SPLIT.split(_TIME_IN_PARENTHESES.sub(r" / \1", cleaned)):
        part = part.strip(" ,;:")
        if not part:
            continue
        date = parse_date(part)
        time = parse_time(part)
        zone = _ZONE.search(_strip_dates(part))
        zone_key = time.zone if time and time.zone else (_zone_key(zone.group("zone")) if zone else None)
        halves.append(Half(text=part, date=date, time=time, zone=zone_key, eod=bool(_EOD.search(part))))
    if not any(half.date for half in halves):
        return None
    return When(text=cleaned, halves=tuple(halves))


# -- years -------------------------------------------------------------------------------------------------------


def estimate_cycle_year(major: int, minor: int) -> int:
    """The calendar year a release cycle most likely started in, from its number alone.

    Since 1.18 the project has shipped three minors a year (1.18, 1.21, 1.24 … each started in January);
    before that, four (1.10–1.13 in 2018, 1.14–1.17 in 2019). Only a fallback for schedules without any year.
    """
    if major != 1:
        return 2014 + minor // 4
    if minor >= 18:
        return 2020 + (minor - 18) // 3
    return 2019 - (17 - minor) // 4


def anchor_date(
    cycle: PartialDate, explicit: list[datetime.date], *, major: int, minor: int
) -> tuple[datetime.date, str | None]:
    """The cycle start as a full date, plus a warning when its year had to be inferred.

    - The cycle start's own year, when written.
    - Else the year that puts it on or before the first fully written date of the schedule.
    - Else (no year anywhere, releases 1.18–1.22) the year near `estimate_cycle_year` whose calendar
      has the cycle start on the weekday the schedule names.
    """
    if cycle.year is not None:
        return cycle.with_year(cycle.year), None
    if explicit:
        first = explicit[0]
        for year in (first.year, first.year - 1):
            try:
                candidate = datetime.date(year, cycle.month, cycle.day)
            except ValueError:
                continue
            if candidate <= first + datetime.timedelta(days=31):
                return candidate, None
        return cycle.with_year(first.year - 1), None
    estimate = estimate_cycle_year(major, minor)
    for year in (estimate, estimate - 1, estimate + 1):
        try:
            candidate = datetime.date(year, cycle.month, cycle.day)
        except ValueError:
            continue
        if cycle.weekday is None or candidate.weekday() == cycle.weekday:
            how = "weekday and release number" if cycle.weekday is not None else "release number"
            return candidate, f"the schedule gives no year; took {year} from the cycle start's {how}"
    return cycle.with_year(estimate), f"the schedule gives no year; took {estimate} from the release number"


def year_near(partial: PartialDate, anchor: datetime.date) -> datetime.date:
    """A date written without a year: the first such date on or after the cycle start (a month's slack
    before it, for events listed in "week 0")."""
    if partial.year is not None:
        return partial.with_year(partial.year)
    earliest = anchor - datetime.timedelta(days=31)
    for year in (anchor.year - 1, anchor.year, anchor.year + 1, anchor.year + 2):
        try:
            candidate = datetime.date(year, partial.month, partial.day)
        except ValueError:
            continue
        if candidate >= earliest:
            return candidate
    raise ImportFailure(f"impossible date: day {partial.day} of month {partial.month}")


# -- instants ----------------------------------------------------------------------------------------------------


def _offset(zone_key: str, local: datetime.datetime) -> datetime.timedelta:
    zone = ZONES[zone_key][0]
    if isinstance(zone, datetime.tzinfo):
        return local.replace(tzinfo=zone).utcoffset()
    return datetime.timedelta(hours=zone)


def to_utc(date: datetime.date, time: ClockTime | None, zone_key: str | None, *, eod: bool = False):
    """The UTC instant of a local date and time in a quoted zone, and a warning if PST/PDT is the wrong one."""
    warning = None
    if zone_key == "AOE" and time is None:
        # End of that day Anywhere on Earth: 24:00 AoE (UTC-12), which is 12:00 UTC the next day.
        end_of_day = datetime.datetime.combine(date + datetime.timedelta(days=1), datetime.time(), AOE)
        return end_of_day.astimezone(UTC), None
    hour, minute = (time.hour, time.minute) if time else (23, 59) if eod else (0, 0)
    local = datetime.datetime(date.year, date.month, date.day, hour, minute)
    zone_key = zone_key or "UTC"
    offset = _offset(zone_key, local)
    if zone_key in ("PST", "PDT"):
        actual = local.replace(tzinfo=PACIFIC).tzname()
        if actual != zone_key:
            warning = f"{zone_key} quoted for {date.isoformat()}, when Pacific time is {actual}"
    return (local - offset).replace(tzinfo=UTC), warning


def _describe(at: datetime.datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC")


def resolve(
    when: When,
    *,
    anchor: datetime.date,
    hint_time: ClockTime | None = None,
    hint_zone: str | None = None,
    hint_eod: bool = False,
) -> Instant:
    """The UTC instant a parsed `When` names, trusting its UTC half; warnings for every disagreement."""
    dated = [half for half in when.halves if half.date]
    dates = {id(half): year_near(half.date, anchor) for half in dated}
    warnings = _weekday_warnings(dated, dates)
    timed = _timed_halves(when, dated, dates, warnings)
    if not timed and (hint_time or hint_eod) and dated:
        zone = (hint_time.zone if hint_time else None) or hint_zone
        at, warning = to_utc(dates[id(dated[0])], hint_time, zone, eod=hint_eod)
        if warning:
            warnings.append(warning)
        return Instant(at, False, ZONES[zone][1] if zone else "UTC", tuple(warnings))
    if not timed:
        day = dates[id(dated[0])]
        return Instant(datetime.datetime.combine(day, datetime.time(0), UTC), True, "", tuple(warnings))
    trusted_half, trusted = next(((h, at) for h, at in timed if h.zone in _UTC_NAMES), timed[0])
    for half, at in timed:
        if at != trusted:
            warnings.append(
                f"{trusted_half.text!r} ({_describe(trusted)}) and {half.text!r} ({_describe(at)}) disagree; "
                f"trusting {'the UTC half' if trusted_half.zone in _UTC_NAMES else 'the first half'}"
            )
    first_zone = next((half.zone for half in when.halves if half.zone), None)
    quoted = ZONES[first_zone][1] if first_zone else "UTC"
    return Instant(trusted, False, quoted, tuple(warnings))


def _weekday_warnings(dated: list[Half], dates: dict[int, datetime.date]) -> list[str]:
    """A warning for each half whose weekday is not its date's (the date is trusted)."""
    warnings = []
    for half in dated:
        weekday = half.date.weekday
        actual = dates[id(half)]
        if weekday is not None and actual.weekday() != weekday:
            warnings.append(
                f"{half.text!r}: {actual.isoformat()} is a {WEEKDAY_NAMES[actual.weekday()]}, "
                f"not a {WEEKDAY_NAMES[weekday]}; trusting the date"
            )
    return warnings


def _timed_halves(
    when: When, dated: list[Half], dates: dict[int, datetime.date], warnings: list[str]
) -> list[tuple[Half, datetime.datetime]]:
    """The halves that name a time of day, each with its UTC instant: the dated ones first, then those with a
    time and no date."""
    timed: list[tuple[Half, datetime.datetime]] = []
    for half in dated:
        if half.time or half.eod or half.zone == "AOE":
            at, warning = to_utc(dates[id(half)], half.time, half.zone, eod=half.eod)
            if warning:
                warnings.append(warning)
            timed.append((half, at))
    for half in when.halves:
        if half.date is None and half.time and dated:
            reference = timed[0][1] if timed else to_utc(dates[id(dated[0])], None, None)[0]
            at, warning = _nearest_instant(half, reference)
            if warning:
                warnings.append(warning)
            timed.append((half, at))
    return timed


def _nearest_instant(half: Half, reference: datetime.datetime) -> tuple[datetime.datetime, str | None]:
    """A half with a time and no date ("17:00 UTC / 09:00 PDT Tuesday 13th December") takes the date that
    puts it nearest to the instant a dated sibling names."""
    guesses = []
    for delta in (-1, 0, 1):
        day = (reference + datetime.timedelta(days=delta)).date()
        at, warning = to_utc(day, half.time, half.zone)
        guesses.append((abs(at - reference), at, warning))
    _, at, warning = min(guesses, key=lambda guess: guess[0])
    return at, warning
