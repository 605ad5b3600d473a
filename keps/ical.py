"""iCalendar (RFC 5545) feed of one SIG's recurring meetings (`/sigs/<slug>/meetings.ics`), written by the site's
one iCalendar writer (core/ical.py), as releases/ical.py is.

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

from community.meeting_schedule import meeting_recurrence, meeting_when_text
from community.models import Sig, SigMeeting
from core import ical

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
    stamp = timezone.now()
    domain = _uid_domain()
    events, undated = [], []
    for meeting in meetings:
        recurrence = meeting_recurrence(meeting)
        title = meeting.description or "SIG meeting"
        if recurrence is None:
            undated.append(f"{title}: {meeting_when_text(meeting) or 'when is not given'}")
            continue
        start = recurrence.first.replace(tzinfo=zoneinfo.ZoneInfo(meeting.tz))
        rule = {"freq": recurrence.freq, "byday": recurrence.byday}
        if recurrence.interval > 1:
            rule["interval"] = recurrence.interval
        events.append(
            ical.event(
                uid=f"sig-meeting-{sig.slug}-{meeting.position}@{domain}",
                stamp=stamp,
                summary=f"{sig.display_name}: {title}",
                start=start,
                end=start + DEFAULT_LENGTH,
                utc=False,  # at its local hour across daylight saving: TZID and the zone's VTIMEZONE
                rrule=rule,
                description=_description(meeting),
                url=meeting.url,
            )
        )
    calendar = ical.calendar(
        prodid=PRODID,
        name=f"{sig.display_name} meetings (sigtracker)",
        refresh=datetime.timedelta(days=1),
        published_ttl="P1D",
        description=(
            "Not in this calendar, as sigs.yaml does not say which weeks they fall on: " + "; ".join(undated)
            if undated
            else ""
        ),
    )
    for event in events:
        calendar.add_component(event)
    return ical.to_bytes(calendar)
