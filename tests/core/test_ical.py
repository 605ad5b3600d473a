"""The iCalendar writer: whatever text it is given, `icalendar` reads back the same value, and no line is longer
than RFC 5545 allows."""

import datetime

from hypothesis import given
from hypothesis import strategies as st
from icalendar import Calendar

from core import ical

UTC = datetime.UTC


def _parse(*lines: str) -> Calendar:
    body = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", *lines, "END:VCALENDAR"]
    return Calendar.from_ical(ical.calendar_bytes(body))


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n\r\\;,:\"'")))
def test_any_text_reads_back_as_written_and_no_line_exceeds_75_octets(value):
    written = ical.content_line("DESCRIPTION", ical.text(value))
    assert all(len(line.encode()) <= 75 for line in written.split("\r\n"))
    calendar = _parse("BEGIN:VEVENT", "UID:x@test", "DTSTAMP:20240101T000000Z", written, "END:VEVENT")
    (event,) = calendar.walk("VEVENT")
    expected = value.replace("\r\n", "\n").replace("\r", "\n")
    assert str(event["DESCRIPTION"]) == expected


def test_folding_never_splits_a_character():
    line = ical.fold("SUMMARY:" + "é" * 100 + "🚀" * 30)
    assert all(len(part.encode()) <= 75 for part in line.split("\r\n"))
    assert line.replace("\r\n ", "") == "SUMMARY:" + "é" * 100 + "🚀" * 30


def test_dates_instants_and_durations():
    at = datetime.datetime(2022, 10, 6, 18, 0, 30, 999, tzinfo=datetime.timezone(datetime.timedelta(hours=-7)))
    assert ical.utc(at) == "20221007T010030Z"
    assert ical.date(datetime.date(2022, 12, 8)) == "20221208"
    cases = {
        datetime.timedelta(days=-1): "-P1D",
        datetime.timedelta(hours=12): "PT12H",
        datetime.timedelta(days=1, hours=2, minutes=30): "P1DT2H30M",
        datetime.timedelta(0): "PT0S",
    }
    for value, written in cases.items():
        assert ical.duration(value) == written
        calendar = _parse(ical.content_line("REFRESH-INTERVAL", written, value="DURATION"))
        assert calendar.decoded("REFRESH-INTERVAL") == value
