"""When a SIG's recurring meetings (sigs.yaml, `SigMeeting`) take place: the one rule the home page's "next
meeting" and the per-SIG calendar (keps/ical.py) both read.

A meeting recurs at its local `time` in its IANA zone `tz`, so daylight saving moves it in UTC, as it moves the
meeting for the people who hold it. Recurrences that can be dated:

- weekly on `day`;
- every other week on `day`, counted from `anchor_date` (sigs.yaml's "biweekly starting Tuesday Feb 11, 2025");
- monthly on the `week_of_month`-th `day` ("first Wednesday", "last Wednesday": -1).

Anything else — every other week with no date to count from (most of sigs.yaml), "every four weeks", a meeting
without a day, time or zone — is not dated: which weeks it falls on is not in the data, and a guessed date would be
wrong half the time. Those are described in words (`meeting_when_text`), never given a date.
"""

from __future__ import annotations

import datetime
import re
import zoneinfo
from dataclasses import dataclass

from dateutil import rrule

from .choices import MeetingFrequency, Weekday
from .models import SigMeeting

__all__ = [
    "NextMeeting",
    "Recurrence",
    "meeting_recurrence",
    "meeting_when_text",
    "next_meeting_at",
    "sig_next_meetings",
]

#: Where a weekly or monthly recurrence starts when the data gives no date: a fixed day, so a calendar's
#: DTSTART does not change from one download to the next.
EPOCH = datetime.date(2024, 1, 1)
_ORDINAL_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", -1: "last"}


def _zone(meeting: SigMeeting) -> zoneinfo.ZoneInfo | None:
    try:
        return zoneinfo.ZoneInfo(meeting.tz) if meeting.tz else None
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):  # edited by hand in the admin
        return None


@dataclass(frozen=True)
class Recurrence:
    """A dated meeting's series in its local time: the first start (naive, in the meeting's zone) and the RRULE
    parts (RFC 5545 names), with `rule` generating the starts."""

    first: datetime.datetime
    freq: str  # "weekly" | "monthly"
    interval: int
    byday: str  # "TU", or "1WE" / "-1WE" for monthly
    rule: rrule.rrule


_ICAL_DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


def meeting_recurrence(meeting: SigMeeting) -> Recurrence | None:
    """The meeting's series (see the module docstring), or None when it cannot be dated."""
    if meeting.day is None or meeting.time is None or _zone(meeting) is None:
        return None
    weekday, byday = rrule.weekday(meeting.day), _ICAL_DAYS[meeting.day]
    if meeting.frequency == MeetingFrequency.WEEKLY:
        start, freq, interval = EPOCH, "weekly", 1
    elif meeting.frequency == MeetingFrequency.BIWEEKLY and meeting.anchor_date:
        # Counted from the first such weekday on or after the date sigs.yaml gives.
        start, freq, interval = meeting.anchor_date, "weekly", 2
    elif meeting.frequency == MeetingFrequency.MONTHLY and meeting.week_of_month in _ORDINAL_WORDS:
        start, freq, interval = EPOCH, "monthly", 1
        weekday, byday = weekday(meeting.week_of_month), f"{meeting.week_of_month}{byday}"
    else:
        return None
    rule = rrule.rrule(
        rrule.WEEKLY if freq == "weekly" else rrule.MONTHLY,
        interval=interval,
        byweekday=weekday,
        dtstart=datetime.datetime.combine(start, meeting.time),
    )
    return Recurrence(first=rule[0], freq=freq, interval=interval, byday=byday, rule=rule)


def next_meeting_at(meeting: SigMeeting, *, now: datetime.datetime) -> datetime.datetime | None:
    """The next start strictly after `now`, in UTC, or None when the meeting cannot be dated."""
    recurrence, zone = meeting_recurrence(meeting), _zone(meeting)
    if recurrence is None or zone is None:
        return None
    local_now = now.astimezone(zone).replace(tzinfo=None)
    following = recurrence.rule.after(local_now)
    return following.replace(tzinfo=zone).astimezone(datetime.UTC) if following else None


def meeting_when_text(meeting: SigMeeting) -> str:
    """How the meeting recurs, in words: 'every other Tuesday at 10:00 (America/Los_Angeles)'."""
    day = Weekday(meeting.day).label if meeting.day is not None else ""
    if meeting.frequency == MeetingFrequency.WEEKLY and day:
        when = f"every {day}"
    elif meeting.frequency == MeetingFrequency.BIWEEKLY and day:
        when = f"every other {day}"
    elif meeting.frequency == MeetingFrequency.MONTHLY and day and meeting.week_of_month in _ORDINAL_WORDS:
        when = f"the {_ORDINAL_WORDS[meeting.week_of_month]} {day} of the month"
    else:
        when = meeting.frequency_note or (f"on {day}" if day else "")
    if meeting.time is not None:
        when += f" at {meeting.time:%H:%M}" + (f" ({meeting.tz})" if meeting.tz else " (time zone not given)")
    return when.strip()


@dataclass(frozen=True)
class NextMeeting:
    """A SIG's main meeting with when it next meets (`at` in UTC; None when sigs.yaml gives no date), in words too."""

    sig: object
    meeting: SigMeeting
    at: datetime.datetime | None
    when: str


#: How a SIG names its main meeting in sigs.yaml, best first: "Regular SIG Meeting" (most SIGs), "Main SIG Meeting"
#: (sig-node), "SIG Network Meeting" / "SIG Testing Bi-Weekly Meeting" (the SIG's name), then any other "regular"
#: one. Sub-group meetings ("Gateway API Meeting", "Weekly CI/Triage Meeting", "APAC SIG Meeting") match none.
_MAIN_MEETING_NAMES = (
    re.compile(r"^(regular|main)\s+sig\s+meeting$"),
    re.compile(r"^sig\s+\S+\s+((bi-?)?weekly\s+)?meeting$"),
    re.compile(r"^regular\s+sig\s+meeting\b"),
)


def main_meeting_rank(meeting: SigMeeting) -> tuple[int, int]:
    """Sort key putting a SIG's main meeting first (`_MAIN_MEETING_NAMES`), then sigs.yaml's order."""
    name = " ".join(meeting.description.lower().split())
    rank = next((i for i, pattern in enumerate(_MAIN_MEETING_NAMES) if pattern.search(name)), len(_MAIN_MEETING_NAMES))
    return rank, meeting.position


def sig_next_meetings(*, now: datetime.datetime, sig_ids=None) -> list[NextMeeting]:
    """Each SIG's main meeting (`main_meeting_rank`: the one named like the SIG's regular meeting, else its first in
    sigs.yaml) with when it next meets (one query); SIGs in slug order. `sig_ids` limits it to those SIGs."""
    meetings = SigMeeting.objects.select_related("sig").order_by("sig__slug", "position")
    if sig_ids is not None:
        meetings = meetings.filter(sig_id__in=sig_ids)
    best: dict[int, SigMeeting] = {}
    for meeting in meetings:
        current = best.get(meeting.sig_id)
        if current is None or main_meeting_rank(meeting) < main_meeting_rank(current):
            best[meeting.sig_id] = meeting
    return [
        NextMeeting(meeting.sig, meeting, next_meeting_at(meeting, now=now), meeting_when_text(meeting))
        for meeting in best.values()
    ]
