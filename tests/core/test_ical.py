"""The site's one iCalendar writer (built on `icalendar`): whatever text it is given reads back the same, no line
is longer than RFC 5545 allows, instants are UTC, all-day events are dates, zoned events carry their VTIMEZONE."""

import datetime
import zoneinfo

import pytest
from hypothesis import given
from hypothesis import strategies as st
from icalendar import Calendar

from core import ical

UTC = datetime.UTC
STAMP = datetime.datetime(2024, 1, 1, tzinfo=UTC)


def _feed(*events, **calendar) -> bytes:
    cal = ical.calendar(prodid="-//test//EN", name="test", refresh=datetime.timedelta(hours=12), **calendar)
    for event in events:
        cal.add_component(event)
    return ical.to_bytes(cal)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n\r\\;,:\"'"), min_size=1))
def test_any_text_reads_back_as_written_and_no_line_exceeds_75_octets(value):
    body = _feed(ical.event(uid="x@test", stamp=STAMP, summary=value, start=STAMP, description=value))
    assert all(len(line) <= 75 for line in body.split(b"\r\n"))
    (event,) = Calendar.from_ical(body).walk("VEVENT")
    # icalendar (vText) reads a typed backslash-N as a line break, as it documents; every other text reads back as is.
    expected = value.replace("\\N", "\n").replace("\r\n", "\n").replace("\r", "\n")
    assert str(event["DESCRIPTION"]) == expected
    assert str(event["SUMMARY"]) == expected


def test_instants_are_utc_dates_are_all_day_and_durations_read_back():
    at = datetime.datetime(2022, 10, 6, 18, 0, 30, 999, tzinfo=datetime.timezone(datetime.timedelta(hours=-7)))
    timed = ical.event(uid="a@test", stamp=at, summary="freeze", start=at)
    timed.add_component(ical.display_alarm(description="Tomorrow", before=datetime.timedelta(days=1)))
    day = ical.event(uid="b@test", stamp=at, summary="day", start=datetime.date(2022, 12, 8), transparent=True)
    body = _feed(timed, day, published_ttl="PT12H")
    assert b"DTSTART:20221007T010030Z\r\n" in body and b"DTSTAMP:20221007T010030Z\r\n" in body
    assert b"DTSTART;VALUE=DATE:20221208\r\nDTEND;VALUE=DATE:20221209\r\n" in body
    assert b"TRIGGER:-P1D\r\n" in body and b"TRANSP:TRANSPARENT\r\n" in body
    assert b"DTEND:" not in body  # a timed deadline ends when it starts (RFC 5545 §3.6.1)
    cal = Calendar.from_ical(body)
    assert cal.decoded("REFRESH-INTERVAL") == datetime.timedelta(hours=12)
    assert str(cal["X-PUBLISHED-TTL"]) == "PT12H"


def test_a_zoned_event_keeps_its_local_hour_with_its_vtimezone():
    start = datetime.datetime(2024, 3, 5, 10, 0, tzinfo=zoneinfo.ZoneInfo("America/Los_Angeles"))
    event = ical.event(
        uid="m@test",
        stamp=STAMP,
        summary="SIG Node weekly",
        start=start,
        end=start + datetime.timedelta(hours=1),
        utc=False,
        rrule={"freq": "weekly", "byday": "TU"},
    )
    body = _feed(event)
    assert b"DTSTART;TZID=America/Los_Angeles:20240305T100000\r\n" in body
    assert b"RRULE:FREQ=WEEKLY;BYDAY=TU\r\n" in body
    (zone,) = Calendar.from_ical(body).walk("VTIMEZONE")
    assert str(zone["TZID"]) == "America/Los_Angeles"


def test_a_naive_instant_is_refused():
    with pytest.raises(ValueError, match="needs a time zone"):
        ical.event(uid="x@test", stamp=STAMP, summary="x", start=datetime.datetime(2024, 1, 1))
