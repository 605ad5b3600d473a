"""The site's one iCalendar (RFC 5545) writer, built on the `icalendar` library: every feed (release milestones,
a SIG's meetings, a person's deadlines) makes its calendar, events and alarms here, and `icalendar` escapes TEXT
values, writes dates, instants, durations and recurrence rules, folds long lines without splitting a character,
and adds the VTIMEZONE of every zone an event names.

- An instant is written in UTC, with the `Z` (§3.3.5, form #2): every client shows it in its own zone. An event
  that keeps its local hour across daylight saving (a meeting at 10:00 Pacific) gives a start in its zone instead,
  and is written with TZID and that zone's VTIMEZONE.
- A `datetime.date` start is an all-day event (DTSTART;VALUE=DATE), ending the next day unless told otherwise.
- Microseconds are dropped (iCalendar counts seconds).

It costs more CPU than the hand-written lines it replaced: `/calendar.ics` on the real sig-release schedules (108
milestones) rendered in 149 ms against 34 ms (dev settings, SQLite, this 2-CPU machine at load 6, 4 Dec 2026; see
bench/RESULTS.md). The page cache pays that once per data change and minute, not per request.
"""

import datetime
from collections.abc import Iterable

from icalendar import Alarm, Calendar, Event


def calendar(
    *,
    prodid: str,
    name: str,
    refresh: datetime.timedelta,
    published_ttl: str | None = None,
    gregorian: bool = True,
    description: str = "",
) -> Calendar:
    """An empty VCALENDAR published for subscription: its name, and how often clients should fetch it again
    (REFRESH-INTERVAL, and the older X-PUBLISHED-TTL that Outlook reads)."""
    cal = Calendar()
    cal.add("version", "2.0")
    cal.add("prodid", prodid)
    if gregorian:
        cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", name)
    cal.add("refresh-interval", refresh, parameters={"VALUE": "DURATION"})
    if published_ttl:
        cal.add("x-published-ttl", published_ttl)
    if description:
        cal.add("x-wr-caldesc", description)
    return cal


def _instant(value: datetime.datetime) -> datetime.datetime:
    if value.tzinfo is None:
        raise ValueError(f"an iCalendar instant needs a time zone: {value!r}")
    return value.replace(microsecond=0)


def event(
    *,
    uid: str,
    stamp: datetime.datetime,
    summary: str,
    start: datetime.datetime | datetime.date,
    end: datetime.datetime | datetime.date | None = None,
    description: str = "",
    url: str = "",
    categories: Iterable[str] = (),
    transparent: bool = False,
    rrule: dict | None = None,
    utc: bool = True,
) -> Event:
    """One VEVENT. `start` an aware datetime (written in UTC unless `utc=False`, then in its own zone) or a date
    (an all-day event, to the next day when `end` is not given). A timed event without `end` has none: RFC 5545
    §3.6.1, it ends when it starts (a deadline instant)."""
    item = Event()
    item.add("uid", uid)
    item.add("dtstamp", _instant(stamp).astimezone(datetime.UTC))
    item.add("summary", summary)
    if isinstance(start, datetime.datetime):
        start = _instant(start).astimezone(datetime.UTC) if utc else _instant(start)
        if end is not None:
            end = _instant(end).astimezone(datetime.UTC) if utc else _instant(end)
    elif end is None:
        end = start + datetime.timedelta(days=1)
    item.add("dtstart", start)
    if end is not None:
        item.add("dtend", end)
    if transparent:
        item.add("transp", "TRANSPARENT")
    if rrule:
        item.add("rrule", rrule)
    if description:
        item.add("description", description)
    if url:
        item.add("url", url)
    categories = list(categories)
    if categories:
        item.add("categories", categories)
    return item


def display_alarm(*, description: str, before: datetime.timedelta) -> Alarm:
    """A VALARM that shows `description` `before` the event's start (TRIGGER:-P1D for a day)."""
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", description)
    alarm.add("trigger", -before)
    return alarm


def to_bytes(cal: Calendar) -> bytes:
    """The calendar as an iCalendar stream (UTF-8, CRLF), with a VTIMEZONE for every zone its events name."""
    cal.add_missing_timezones()
    return cal.to_ical()
