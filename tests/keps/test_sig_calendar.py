"""SIG meetings from sigs.yaml: when the next one is (daylight saving, every other week, monthly), the home page's
"Next SIG meetings" block and the per-SIG `/sigs/<slug>/meetings.ics`."""

import datetime
from io import StringIO

import pytest
from django.core.management import call_command
from icalendar import Calendar

from community.meeting_schedule import meeting_when_text, next_meeting_at, sig_next_meetings
from community.models import SigMeeting
from tests.factories import SigFactory

pytestmark = pytest.mark.django_db
UTC = datetime.UTC


def at(*parts) -> datetime.datetime:
    return datetime.datetime(*parts, tzinfo=UTC)


def meeting(**fields) -> SigMeeting:
    values = {
        "sig": SigFactory(slug="sig-node", name="Node"),
        "position": 0,
        "description": "Regular SIG Meeting",
        "day": 1,  # Tuesday
        "time": datetime.time(10),
        "tz": "America/Los_Angeles",
        "frequency": "weekly",
    }
    values.update(fields)
    return SigMeeting.objects.create(**values)


def test_weekly_meeting_keeps_its_local_hour_across_daylight_saving():
    weekly = meeting()
    # 10:00 Pacific is 18:00 UTC in winter; US clocks sprang forward on 10 March 2024, then it is 17:00 UTC.
    assert next_meeting_at(weekly, now=at(2024, 3, 4)) == at(2024, 3, 5, 18)
    assert next_meeting_at(weekly, now=at(2024, 3, 5, 18)) == at(2024, 3, 12, 17)  # strictly after


def test_every_other_week_counts_from_the_date_sigs_yaml_gives():
    biweekly = meeting(frequency="biweekly", anchor_date=datetime.date(2025, 2, 11), tz="Europe/Berlin", time=None)
    assert next_meeting_at(biweekly, now=at(2025, 2, 12)) is None  # no time: not dated
    biweekly.time = datetime.time(9)
    assert next_meeting_at(biweekly, now=at(2025, 2, 12)) == at(2025, 2, 25, 8)
    assert next_meeting_at(biweekly, now=at(2025, 2, 26)) == at(2025, 3, 11, 8)


def test_every_other_week_without_a_date_is_described_not_dated():
    biweekly = meeting(frequency="biweekly")
    assert next_meeting_at(biweekly, now=at(2025, 2, 12)) is None
    assert meeting_when_text(biweekly) == "every other Tuesday at 10:00 (America/Los_Angeles)"


def test_monthly_on_the_nth_weekday():
    first_wednesday = meeting(frequency="monthly", week_of_month=1, day=2, time=datetime.time(8))
    assert next_meeting_at(first_wednesday, now=at(2025, 1, 2)) == at(2025, 2, 5, 16)
    last = meeting(position=1, frequency="monthly", week_of_month=-1, day=2, time=datetime.time(8))
    assert next_meeting_at(last, now=at(2025, 1, 2)) == at(2025, 1, 29, 16)
    assert meeting_when_text(last) == "the last Wednesday of the month at 08:00 (America/Los_Angeles)"


def test_each_sig_gets_its_main_meeting_not_its_first_or_soonest():
    meeting(frequency="biweekly", description="Weekly CI/Triage Meeting")  # undated, first listed
    meeting(position=1, day=3, description="Resource management")
    meeting(position=2, day=2, description="CI subproject")  # the soonest
    main = meeting(position=3, day=1, description="Main SIG Meeting")
    meeting(sig=SigFactory(slug="sig-apps"), frequency="other", frequency_note="every four weeks")
    network = SigFactory(slug="sig-network", name="Network")
    for position, name in enumerate(["Gateway API Meeting (Americas)", "Network Policy API Meeting",
                                      "SIG Network Ingress NGINX Meeting", "SIG Network Meeting"]):  # fmt: skip
        meeting(sig=network, position=position, description=name)
    (apps, network_row, node) = sig_next_meetings(now=at(2024, 3, 4))
    assert (node.meeting, node.at) == (main, at(2024, 3, 5, 18))
    assert network_row.meeting.description == "SIG Network Meeting"
    # None named like a main meeting: the first listed.
    assert apps.at is None and apps.when == "every four weeks at 10:00 (America/Los_Angeles)"


def test_calendar_has_a_recurring_event_per_dated_meeting_in_its_own_zone(client):
    meeting(url="https://zoom.us/j/4799874685", archive_url="https://docs.google.com/document/d/x/edit")
    meeting(position=1, frequency="biweekly", anchor_date=datetime.date(2025, 2, 11), tz="Europe/Berlin")
    meeting(position=2, frequency="biweekly", description="Triage")  # no start date: not an event
    response = client.get("/sigs/sig-node/meetings.ics")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/calendar")
    body = response.content.decode()
    assert "RRULE:FREQ=WEEKLY;BYDAY=TU" in body
    assert "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU" in body
    assert "DTSTART;TZID=America/Los_Angeles:20240102T100000" in body
    assert "DTSTART;TZID=Europe/Berlin:20250211T100000" in body
    calendar = Calendar.from_ical(response.content)
    events = calendar.walk("VEVENT")
    assert len(events) == 2 and {tz["TZID"] for tz in calendar.walk("VTIMEZONE")} == {
        "America/Los_Angeles",
        "Europe/Berlin",
    }
    assert {str(e["UID"]).split("@")[0] for e in events} == {"sig-meeting-sig-node-0", "sig-meeting-sig-node-1"}
    assert "Triage: every other Tuesday" in str(calendar["X-WR-CALDESC"])
    assert "Join: https://zoom.us/j/4799874685" in str(events[0]["DESCRIPTION"])


def test_calendar_of_an_unknown_sig_is_404(client):
    assert client.get("/sigs/sig-nowhere/meetings.ics").status_code == 404


def test_home_page_shows_next_meetings_in_utc_with_a_calendar_link(client):
    meeting()
    meeting(sig=SigFactory(slug="sig-apps", name="Apps"), frequency="biweekly")
    html = client.get("/").content.decode()
    assert "Next SIG meetings" in html
    assert 'class="sig-meeting-at" datetime="' in html  # the reader's zone is filled in from this
    assert "every other Tuesday at 10:00 (America/Los_Angeles) — which weeks is not in sigs.yaml" in html
    assert 'href="/sigs/sig-node/meetings.ics"' in html and 'href="/sigs/sig-apps/meetings.ics"' in html


def test_shared_sigs_yaml_gives_every_sig_a_calendar(client, upstream_dir):
    call_command("import_sigs", str(upstream_dir / "community" / "sigs.yaml"), stdout=StringIO(), verbosity=0)
    now = at(2026, 1, 5)
    rows = sig_next_meetings(now=now)
    assert len(rows) >= 30
    dated = [row for row in rows if row.at is not None]
    assert dated and all(now < row.at < now + datetime.timedelta(days=32) for row in dated)
    for row in rows:
        response = client.get(f"/sigs/{row.sig.slug}/meetings.ics")
        assert response.status_code == 200
        Calendar.from_ical(response.content)
