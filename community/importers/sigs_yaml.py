"""Parse kubernetes/community's `sigs.yaml` into plain records: SIGs, working groups, committees, user groups.

Pure functions: text in, frozen dataclasses out, `ImportFailure` for a file that cannot be imported at all. No
Django ORM here. The format is the one `generator/app.go` in kubernetes/community reads
(https://github.com/kubernetes/community/blob/master/sigs.yaml); the file has changed shape since 2017, and the
importer is run on old copies too. Each way a file strays is handled by one rule below:

* Lists (`GROUP_LISTS`): `sigs`, `workinggroups`, `committees` (2018 on) and `usergroups` (2019 on); a missing list is
  empty, a file with none of them is not a sigs.yaml. A list that is not a list skips that list, one line.
* Groups (`_group`): a group that is not a mapping, or has neither `dir` nor `name`, is skipped with one line naming
  its place (`sigs[3]`); so is a second group with the same slug, or a field of the wrong shape
  (`leadership` as text). The slug is `dir`; the 2017 files have none and the generator built it from the name
  (`sig-` + "Cluster Lifecycle" in kebab case), which is done here too. `label` is `dir` without its prefix when
  absent (`sig-node` -> `node`), which is what GitHub's `sig/<label>` labels use.
* Leaders (`_leaders`): `leadership: {chairs, tech_leads}` (2018 on) or `leads:` (2017, read as chairs); emeritus
  leads are not leaders. An entry without a usable GitHub handle, or with a placeholder (`TBD`), is dropped with a
  warning; an email that is not one is dropped with a warning. Emails appeared in 2021; older leaders have none.
* Mailing list (`mailing_list_address`): `contact.mailing_list` is the Google group's page in several shapes —
  `groups.google.com/forum/#!forum/<name>` (to 2020), `groups.google.com/g/<name>` (2020 on), both
  `<name>@googlegroups.com`; `groups.google.com/a/kubernetes.io/g/<name>` (2021 on) is `<name>@kubernetes.io`.
  The address is derived and the page kept. A bare address is taken as it is; anything else keeps the page only,
  with a warning.
* Meetings (`_meeting`): `day`, `time`, `tz`, `frequency` (2018 on); the 2017 files give `utc:` or `pst:` times
  instead of `time` + `tz`, and put `meeting_url`, `meeting_archive_url`, `meeting_recordings_url` on the group (they
  fill a meeting's missing links). A malformed meeting is dropped with a warning; the group is still imported.
  Meetings of subprojects are not read: the group's own meetings are what its page and calendar show.
* Days (`parse_day`): the first weekday word ("Thursdays (starting February 15th 2024)" -> Thursday); an ordinal
  ("first Wednesday") makes the meeting monthly on that week.
* Times (`parse_time`): "9:00", "09:00", "2PM", "10:30 am"; anything else leaves the time empty, with a warning.
* Time zones (`parse_tz`): "PT (Pacific Time)", "UTC", "CET (Central European Time)", "Eastern Time (ET)",
  "EST (Eastern Time)", "IST", "Poland" (2024) and any IANA name map to an IANA zone; an abbreviation means the zone's
  local time all year ("EST" in July is still New York's 2 PM). Anything else is left empty, with a warning; so is a
  meeting with a time and no zone (the 2017 files without `utc:`/`pst:`).
* Frequencies (`parse_frequency`): free text ("bi-weekly", "biweekly starting Tuesday Feb 11, 2025", "monthly - third
  Tuesday", "every first Thursday of the month", "every four weeks"): weekly, every other week, monthly (with the
  week when named) or other; the words are kept. A "starting <date>" (or "2019 start date: Jan. 11th") is the date
  every-other-week meetings count from; without one, which weeks they meet is unknown, and nothing here guesses.
* Links: only http(s) URLs are kept; others are dropped with a warning.
"""

from __future__ import annotations

import datetime
import re
import zoneinfo
from dataclasses import dataclass, field
from functools import cache

from core.importing import ImportFailure
from core.importing.yaml_text import load_mapping

from .people import PersonRef

__all__ = [
    "GROUP_LISTS",
    "GroupRecord",
    "Leader",
    "MeetingRecord",
    "SigsFile",
    "mailing_list_address",
    "parse_day",
    "parse_frequency",
    "parse_sigs",
    "parse_time",
    "parse_tz",
]

#: (top-level list, Sig.kind value, slug prefix the 2017 generator gave names).
GROUP_LISTS = (
    ("sigs", "sig", "sig-"),
    ("workinggroups", "wg", "wg-"),
    ("committees", "committee", "committee-"),
    ("usergroups", "ug", "ug-"),
)
SLUG_MAX, NAME_MAX, LABEL_MAX, TEXT_MAX, URL_MAX, SLACK_MAX = 64, 100, 64, 300, 500, 100

_SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_HANDLE_RE = re.compile(r"^@?([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$")
_EMAIL_RE = re.compile(r"^[\w.+'-]+@[\w-]+(?:\.[\w-]+)+$")
_PLACEHOLDERS = frozenset({"", "tbd", "tbc", "todo", "none", "n/a", "na", "-", "?", "unknown", "null", "~"})
_URL_RE = re.compile(r"^https?://[^\s]+$", re.IGNORECASE)
_GOOGLE_GROUP_RE = re.compile(
    r"^https?://groups\.google\.com/(?:a/(?P<domain>[a-z0-9.-]+)/)?"
    r"(?:forum/(?:\?[^#]*)?#!(?:forum|topic)/|g/|d/forum/|group/)(?P<name>[a-z0-9._-]+)",
    re.IGNORECASE,
)

_WEEKDAY_RE = re.compile(r"(?<![a-z])(mon|tue|wed|thu|fri|sat|sun)[a-z]*(?![a-z])", re.IGNORECASE)
_WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_ORDINAL_RE = re.compile(r"(?<![a-z])(first|1st|second|2nd|third|3rd|fourth|4th|last)(?![a-z])", re.IGNORECASE)
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": -1}
_TIME_RE = re.compile(r"^(\d{1,2})(?:[:.h](\d{2}))?\s*([ap])?\.?(?:m\.?)?(?![a-z])\s*(.*)$", re.IGNORECASE)
_MONTHS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10}
_MONTHS |= {"nov": 11, "dec": 12}
_MONTH = r"(?P<month>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
# "June 25th, 2020", "Feb 11, 2025", "February 15th 2024"; and "2019 start date: Jan. 11th".
_DATE_RE = re.compile(rf"(?<![a-z]){_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})", re.I)
_YEAR_FIRST_RE = re.compile(rf"(?P<year>\d{{4}})\s+start date:?\s*{_MONTH}\s+(?P<day>\d{{1,2}})", re.I)

_PACIFIC, _EASTERN, _CENTRAL_EU = "America/Los_Angeles", "America/New_York", "Europe/Berlin"
#: Zone words of sigs.yaml (lower case) -> IANA zone. "IST" is India's: Kubernetes meetings quoted in IST are.
TZ_WORDS = {
    **dict.fromkeys(("pt", "pst", "pdt", "pacific", "pacific time", "us pacific", "us/pacific"), _PACIFIC),
    **dict.fromkeys(("et", "est", "edt", "eastern", "eastern time", "us eastern", "us/eastern"), _EASTERN),
    **dict.fromkeys(("ct", "cdt", "central time", "us central"), "America/Chicago"),
    **dict.fromkeys(("mt", "mst", "mdt", "mountain time"), "America/Denver"),
    **dict.fromkeys(("utc", "gmt", "z", "coordinated universal time"), "UTC"),
    **dict.fromkeys(("cet", "cest", "central european time", "central european summer time"), _CENTRAL_EU),
    **dict.fromkeys(("bst", "british summer time", "uk time"), "Europe/London"),
    **dict.fromkeys(("ist", "india standard time"), "Asia/Kolkata"),
    **dict.fromkeys(("jst", "japan standard time"), "Asia/Tokyo"),
    **dict.fromkeys(("kst", "korea standard time"), "Asia/Seoul"),
    **dict.fromkeys(("china standard time", "beijing time"), "Asia/Shanghai"),
    **dict.fromkeys(("aest", "aedt", "australian eastern time"), "Australia/Sydney"),
    "poland": "Europe/Warsaw",
}


# -- records ------------------------------------------------------------------------------------------


#: A chair or tech lead: GitHub handle (as written, without @), name and email when the file gives them; the same
#: shape as a person named in a kep.yaml, so both importers write people alike.
Leader = PersonRef


@dataclass(frozen=True)
class MeetingRecord:
    description: str = ""
    day: int | None = None  # 0 = Monday
    time: datetime.time | None = None
    tz: str = ""  # IANA
    frequency: str = ""  # weekly | biweekly | monthly | other | "" (not said)
    week_of_month: int | None = None  # 1-4, -1 = last
    anchor_date: datetime.date | None = None
    frequency_note: str = ""
    url: str = ""
    archive_url: str = ""
    recordings_url: str = ""


@dataclass(frozen=True)
class GroupRecord:
    slug: str
    kind: str
    name: str = ""
    label: str = ""
    mission: str = ""
    mailing_list: str = ""
    mailing_list_url: str = ""
    slack_channel: str = ""
    chairs: tuple[Leader, ...] = ()
    tech_leads: tuple[Leader, ...] = ()
    meetings: tuple[MeetingRecord, ...] = ()


@dataclass(frozen=True)
class SigsFile:
    """A parsed sigs.yaml: the groups that can be imported, the ones that cannot (one failure each), warnings."""

    groups: tuple[GroupRecord, ...]
    skipped: tuple[ImportFailure, ...] = ()
    warnings: tuple[str, ...] = field(default=(), compare=False)


class _Problem(Exception):
    """A field of the wrong shape inside one group: the group is skipped, naming the field."""

    def __init__(self, field_name: str, reason: str):
        super().__init__(reason)
        self.field_name, self.reason = field_name, reason


# -- field rules --------------------------------------------------------------------------------------


def _text(value, name: str) -> str:
    """A scalar as stripped text ('' when absent); a list or mapping is a problem of the group."""
    if value is None:
        return ""
    if isinstance(value, str | int | float | bool):
        return str(value).strip()
    raise _Problem(name, f"expected a single value, found {'a list' if isinstance(value, list) else 'a mapping'}")


def _mapping(value, name: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Problem(name, "expected a mapping")
    return value


def _list(value, name: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Problem(name, "expected a list")
    return value


def _one_line(text: str, limit: int) -> str:
    return " ".join(text.split())[:limit]


def _url(raw: str, where: str, warnings: list[str]) -> str:
    raw = raw.strip()
    if raw.lower() in _PLACEHOLDERS:  # "recordings_url: TBD"
        return ""
    if _URL_RE.match(raw) and len(raw) <= URL_MAX:
        return raw
    warnings.append(f"{where}: not a web address: {raw[:80]!r}; dropped")
    return ""


def mailing_list_address(raw: str) -> tuple[str, str, str | None]:
    """(list email, page URL, warning or None) from `contact.mailing_list` as written (see module doc)."""
    text = raw.strip()
    if text.lower().startswith("mailto:"):
        text = text[7:]
    if not text:
        return "", "", None
    if _EMAIL_RE.match(text) and len(text) <= 254:
        return text.lower(), "", None
    if not (_URL_RE.match(text) and len(text) <= URL_MAX):
        return "", "", f"neither a Google group nor an address: {raw[:80]!r}; dropped"
    match = _GOOGLE_GROUP_RE.match(text)
    if not match:
        return "", text, f"not a Google group page, so no list address: {raw[:80]!r}; the link is kept"
    domain = (match.group("domain") or "googlegroups.com").lower()
    address = f"{match.group('name').lower()}@{domain}"
    return (address, text, None) if len(address) <= 254 else ("", text, "list name too long; the link is kept")


@cache
def _iana_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def parse_tz(raw: str) -> str | None:
    """The IANA zone a sigs.yaml `tz` means ('PT (Pacific Time)' -> 'America/Los_Angeles'), or None."""
    text = " ".join(raw.split())
    if not text:
        return None
    inside = re.findall(r"\(([^()]*)\)", text)
    outside = re.sub(r"\([^()]*\)", " ", text)
    for candidate in (text, outside, *inside):
        key = " ".join(candidate.lower().split()).strip(" .,")
        if key in TZ_WORDS:
            return TZ_WORDS[key]
    # After the words: "EST", "CET" and "Poland" are IANA names too, but fixed offsets or legacy links.
    return text if text in _iana_zones() else None


def parse_day(raw: str) -> tuple[int | None, int | None]:
    """(weekday 0-6 or None, week of the month or None) from a `day` as written."""
    match = _WEEKDAY_RE.search(raw)
    day = _WEEKDAYS[match.group(1).lower()] if match else None
    ordinal = _ORDINAL_RE.search(raw)
    return day, (_ORDINALS[ordinal.group(1).lower()] if ordinal else None)


def parse_time(raw: str) -> tuple[datetime.time | None, str]:
    """(local time or None, what follows the time, e.g. a zone) from a `time` as written."""
    match = _TIME_RE.match(raw.strip())
    if not match:
        return None, ""
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    half = (match.group(3) or "").lower()
    if half:
        if not 1 <= hour <= 12:
            return None, ""
        hour = hour % 12 + (12 if half == "p" else 0)
    if hour > 23 or minute > 59:
        return None, ""
    return datetime.time(hour, minute), match.group(4).strip()


def _anchor_date(text: str) -> datetime.date | None:
    for pattern in (_DATE_RE, _YEAR_FIRST_RE):
        match = pattern.search(text)
        if match:
            try:
                return datetime.date(
                    int(match.group("year")), _MONTHS[match.group("month")[:3].lower()], int(match.group("day"))
                )
            except ValueError:
                return None
    return None


def parse_frequency(raw: str, *, day_text: str = "") -> tuple[str, int | None, datetime.date | None]:
    """(frequency, week of the month, anchor date) from a `frequency` and `day` as written (see module doc)."""
    text = " ".join(raw.lower().split())
    both = f"{raw} {day_text}"
    _, week = parse_day(both)
    if "after" in text:  # "Wednesday, after the fourth Tuesday": not a week of its own
        week = None
    anchor = _anchor_date(both)
    if re.search(r"bi-?weekly|every (?:other|two|2) weeks?|fortnight", text):
        return "biweekly", None, anchor
    if re.search(r"every (?:three|four|3|4|six|6) weeks", text):
        return "other", None, anchor
    if "month" in text or (week is not None and not text):
        return "monthly", week, anchor
    if "weekly" in text:
        return "weekly", None, anchor
    return ("other" if text else ""), None, anchor


def _leaders(entries, name: str, warnings: list[str], where: str) -> tuple[Leader, ...]:
    people: dict[str, Leader] = {}
    for index, entry in enumerate(_list(entries, name)):
        slot = f"{where}: {name}[{index}]"
        if isinstance(entry, str):
            entry = {"github": entry}
        if not isinstance(entry, dict):
            warnings.append(f"{slot}: not a person; dropped")
            continue
        github = _text(entry.get("github"), f"{name}[{index}].github")
        handle = _HANDLE_RE.match(github)
        if not handle or handle.group(1).lower() in _PLACEHOLDERS:
            if github.lower().lstrip("@") not in _PLACEHOLDERS or not github:
                warnings.append(f"{slot}: no GitHub handle{f' in {github[:60]!r}' if github else ''}; dropped")
            continue
        email = _text(entry.get("email"), f"{name}[{index}].email")
        if email and not (_EMAIL_RE.match(email) and len(email) <= 254):
            warnings.append(f"{slot}.email: not an address: {email[:80]!r}; dropped")
            email = ""
        leader = Leader(
            github=handle.group(1), name=_one_line(_text(entry.get("name"), f"{name}[{index}].name"), 200), email=email
        )
        people.setdefault(leader.key, leader)
    return tuple(people.values())


def _meeting(entry, group: dict, where: str, warnings: list[str]) -> MeetingRecord:
    """One meeting; raises _Problem for an entry of the wrong shape (the caller drops it with a warning)."""
    if not isinstance(entry, dict):
        raise _Problem("", "not a mapping")
    text = {key: _text(entry.get(key), key) for key in ("description", "day", "time", "tz", "frequency", "utc", "pst")}
    day, _ = parse_day(text["day"])
    if text["day"] and day is None:
        warnings.append(f"{where}.day: no weekday in {text['day'][:60]!r}; left empty")
    time_text, zone_text = text["time"], text["tz"]
    if not time_text and (text["utc"] or text["pst"]):  # the 2017 shape: `utc: "18:00"` or `pst: "10:00"`
        time_text, zone_text = (text["utc"], "UTC") if text["utc"] else (text["pst"], "PT")
    time, rest = parse_time(time_text) if time_text else (None, "")
    if time_text and time is None:
        warnings.append(f"{where}.time: not a time: {time_text[:60]!r}; left empty")
    zone_text = zone_text or rest
    tz = parse_tz(zone_text) if zone_text else None
    if zone_text and tz is None:
        warnings.append(f"{where}.tz: unknown time zone {zone_text[:60]!r}; left empty")
    elif time is not None and not zone_text:
        warnings.append(f"{where}.tz: missing; the time {time_text!r} is kept without a zone")
    frequency, week, anchor = parse_frequency(text["frequency"], day_text=text["day"])

    def link(key: str, group_key: str) -> str:
        raw = _text(entry.get(key), key) or _text(group.get(group_key), group_key)
        return _url(raw, f"{where}.{key}", warnings)

    return MeetingRecord(
        description=_one_line(text["description"], TEXT_MAX),
        day=day,
        time=time,
        tz=tz or "",
        frequency=frequency,
        week_of_month=week if frequency == "monthly" else None,
        anchor_date=anchor,
        frequency_note=_one_line(_frequency_note(text["frequency"], text["day"]), TEXT_MAX),
        url=link("url", "meeting_url"),
        archive_url=link("archive_url", "meeting_archive_url"),
        recordings_url=link("recordings_url", "meeting_recordings_url"),
    )


def _frequency_note(frequency: str, day: str) -> str:
    """sigs.yaml's words on when a meeting recurs: the frequency, and the day when it says more than a weekday."""
    plain_day = _WEEKDAY_RE.fullmatch(day.strip().rstrip("s")) is not None
    return frequency if plain_day or not day else f"{frequency}; {day}".strip("; ")


def _kebab(name: str) -> str:
    return "-".join(re.sub(r"[^a-z0-9]+", " ", name.lower()).split())


def _group(entry, *, kind: str, prefix: str, where: str, warnings: list[str]) -> GroupRecord:
    if not isinstance(entry, dict):
        raise _Problem("", "expected a mapping with dir and name")
    name = _one_line(_text(entry.get("name"), "name"), NAME_MAX)
    slug = _text(entry.get("dir"), "dir").lower().strip("/")
    if not slug:
        if not name:
            raise _Problem("dir", "missing, and no name to build it from")
        slug = prefix + _kebab(name)  # the 2017 generator's rule (generator/app.go DirName)
    if not _SLUG_RE.match(slug) or len(slug) > SLUG_MAX:
        raise _Problem("dir", f"not a folder name: {slug[:80]!r}")
    label = _text(entry.get("label"), "label").lower()[:LABEL_MAX] or slug.removeprefix(prefix)

    leadership = _mapping(entry.get("leadership"), "leadership")
    chairs = _leaders(leadership.get("chairs"), "leadership.chairs", warnings, where)
    if "leads" in entry:  # 2017: one list of leads, who chaired
        chairs += tuple(c for c in _leaders(entry.get("leads"), "leads", warnings, where) if c not in chairs)
    tech_leads = _leaders(leadership.get("tech_leads"), "leadership.tech_leads", warnings, where)

    contact = _mapping(entry.get("contact"), "contact")
    address, page, warning = mailing_list_address(_text(contact.get("mailing_list"), "contact.mailing_list"))
    if warning:
        warnings.append(f"{where}.contact.mailing_list: {warning}")
    slack = _text(contact.get("slack"), "contact.slack").lstrip("#")[:SLACK_MAX]

    meetings = []
    for index, meeting in enumerate(_list(entry.get("meetings"), "meetings")):
        slot = f"{where}.meetings[{index}]"
        try:
            meetings.append(_meeting(meeting, entry, slot, warnings))
        except _Problem as problem:
            place = f"{slot}.{problem.field_name}" if problem.field_name else slot
            warnings.append(f"{place}: {problem.reason}; dropped")
    return GroupRecord(
        slug=slug,
        kind=kind,
        name=name,
        label=label,
        mission=_text(entry.get("mission_statement"), "mission_statement")[:5000],
        mailing_list=address,
        mailing_list_url=page,
        slack_channel=slack,
        chairs=chairs,
        tech_leads=tech_leads,
        meetings=tuple(meetings),
    )


# -- file ---------------------------------------------------------------------------------------------


def parse_sigs(text: str, *, source: str) -> SigsFile:
    """The groups of a sigs.yaml. Raises ImportFailure (naming `source`) only when the file as a whole is unusable;
    a group that cannot be imported is in `skipped`, one failure naming its place."""
    data = load_mapping(text, source=source)
    present = [(key, kind, prefix) for key, kind, prefix in GROUP_LISTS if key in data]
    if not present:
        raise ImportFailure("no sigs, workinggroups, committees or usergroups list: not a sigs.yaml", source=source)
    groups: dict[str, GroupRecord] = {}
    skipped: list[ImportFailure] = []
    warnings: list[str] = []
    for key, kind, prefix in present:
        entries = data[key]
        if entries is None:
            continue
        if not isinstance(entries, list):
            skipped.append(ImportFailure("expected a list of groups; list not imported", source=source, field=key))
            continue
        for index, entry in enumerate(entries):
            where = f"{key}[{index}]"
            group_warnings: list[str] = []
            try:
                group = _group(entry, kind=kind, prefix=prefix, where=f"{source}: {where}", warnings=group_warnings)
            except _Problem as problem:
                place = f"{where}.{problem.field_name}" if problem.field_name else where
                skipped.append(ImportFailure(f"{problem.reason}; group not imported", source=source, field=place))
                continue
            if group.slug in groups:
                skipped.append(
                    ImportFailure(f"{group.slug} is listed twice; the first is kept", source=source, field=where)
                )
                continue
            groups[group.slug] = group
            warnings += group_warnings
    return SigsFile(groups=tuple(groups.values()), skipped=tuple(skipped), warnings=tuple(warnings))
