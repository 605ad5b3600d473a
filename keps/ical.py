"""iCalendar (RFC 5545) feed of one SIG's recurring meetings (`/sigs/<slug>/meetings.ics`), in the style of
releases/ical.py.

- Each dated meeting (see community/meeting_schedule.py) is one event with an RRULE (weekly, every other week with
  INTERVAL=2, or monthly on the n-th weekday) and a DTSTART in the meeting's own zone (TZID plus its VTIMEZONE), so
  a client keeps it at 10:00 Pacific across daylight saving instead of at a fixed UTC hour.
- sigs.yaml gives no length: events last an hour (`DEFAULT_LENGTH`), which most SIG meetings do.
- A meeting that cannot be dated (every other week with no start date, "every four weeks", no zone) is not an event:
  the calendar's description names it and says how it recurs, rather than guessing its weeks.
- UIDs come from the SIG and the meeting's place in sigs.yaml, never from a row id, so a re-import keeps them.
"""

import datetime
import zoneinfo
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone
from icalendar import Calendar, Event

from community.meeting_schedule import meeting_recurrence, meeting_when_text
from community.models import Sig, SigMeeting

PRODID = "-//sigtracker//Kubernetes SIG meetings//EN"
DEFAULT_LENGTH = datetime.timedelta(hours=1)


def _uid_domain() -> str:
    return urlsplit(settings.SIGTRACKER_BASE_URL).hostname or "sigtracker"


def _description(meeting: SigMeeting) -> str:
    lines = [meeting_when_text(meeting)]
    for label, url in (("Join", meeting.url), ("Notes", meeting.archive_url), ("Recordings", meeting.recordings_url)):
        if url:
            lines.append(f"{label}: {url}")
    return "\n".join(lines)


def sig_meetings_calendar(*, sig: Sig, meetings: Iterable[SigMeeting]) -> bytes:
    """Serialise a SIG's meetings as one VCALENDAR (see the module docstring)."""
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", f"{sig.display_name} meetings (sigtracker)")
    calendar.add("refresh-interval", datetime.timedelta(days=1), parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", "P1D")
    stamp = timezone.now().astimezone(datetime.UTC).replace(microsecond=0)
    domain = _uid_domain()
    undated = []
    for meeting in meetings:
        recurrence = meeting_recurrence(meeting)
        title = meeting.description or "SIG meeting"
        if recurrence is None:
            undated.append(f"{title}: {meeting_when_text(meeting) or 'when is not given'}")
            continue
        start = recurrence.first.replace(tzinfo=zoneinfo.ZoneInfo(meeting.tz))
        event = Event()
        event.add("uid", f"sig-meeting-{sig.slug}-{meeting.position}@{domain}")
        event.add("dtstamp", stamp)
        event.add("summary", f"{sig.display_name}: {title}")
        event.add("dtstart", start)
        event.add("dtend", start + DEFAULT_LENGTH)
        rule = {"freq": recurrence.freq, "byday": recurrence.byday}
        if recurrence.interval > 1:
            rule["interval"] = recurrence.interval
        event.add("rrule", rule)
        event.add("description", _description(meeting))
        if meeting.url:
            event.add("url", meeting.url)
        calendar.add_component(event)
    if undated:
        calendar.add(
            "x-wr-caldesc",
            "Not in this calendar, as sigs.yaml does not say which weeks they fall on: " + "; ".join(undated),
        )
    calendar.add_missing_timezones()
    return calendar.to_ical()
