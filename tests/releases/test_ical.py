"""The iCalendar feeds parse back, with UTC times, all-day dates, stable UIDs and an alarm before each freeze."""

import datetime

import pytest
from icalendar import Calendar

from releases.choices import MilestoneKind
from releases.ical import milestone_uid_base
from releases.models import Milestone
from tests.factories import MilestoneFactory, ReleaseFactory, SigFactory

pytestmark = pytest.mark.django_db

UTC = datetime.UTC


@pytest.fixture
def schedule(db):
    release = ReleaseFactory(version="1.26")
    # 18:00 PDT on Oct 6 2022 is 01:00 UTC on Oct 7.
    MilestoneFactory(
        release=release,
        kind=MilestoneKind.ENHANCEMENTS_FREEZE,
        at=datetime.datetime(2022, 10, 7, 1, 0, tzinfo=UTC),
        quoted_timezone="PDT",
        source_text="Thursday 6th October 2022, 18:00 PDT",
    )
    MilestoneFactory(
        release=release, kind=MilestoneKind.RELEASE, at=datetime.datetime(2022, 12, 8, tzinfo=UTC), all_day=True
    )
    MilestoneFactory(
        release=release,
        kind=MilestoneKind.SIG_SOFT_FREEZE,
        sig=SigFactory(slug="sig-node"),
        at=datetime.datetime(2022, 10, 25, 0, 0, tzinfo=UTC),
        all_day=True,
    )
    other = ReleaseFactory(version="1.27")
    MilestoneFactory(release=other, kind=MilestoneKind.CODE_FREEZE, at=datetime.datetime(2023, 3, 15, 1, tzinfo=UTC))
    return release


def _events(response):
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    calendar = Calendar.from_ical(response.content)
    return {str(e.get("summary")): e for e in calendar.walk("VEVENT")}, calendar


def test_release_calendar_utc_times_and_all_day(client, schedule):
    events, calendar = _events(client.get("/releases/1.26/calendar.ics"))
    assert str(calendar.get("version")) == "2.0"
    assert len(events) == 3
    freeze = events["Kubernetes v1.26: Enhancements freeze"]
    start = freeze.decoded("dtstart")
    assert start == datetime.datetime(2022, 10, 7, 1, 0, tzinfo=UTC)
    assert start.utcoffset() == datetime.timedelta(0)
    assert b"DTSTART:20221007T010000Z" in client.get("/releases/1.26/calendar.ics").content
    assert "18:00 PDT" in str(freeze.get("description"))
    assert str(freeze.get("url")).endswith(
        "/releases/1.26/#milestone-" + str(Milestone.objects.get(kind="enhancements_freeze").pk)
    )
    release_day = events["Kubernetes v1.26: Release"]
    assert release_day.decoded("dtstart") == datetime.date(2022, 12, 8)
    assert release_day.decoded("dtend") == datetime.date(2022, 12, 9)
    assert "Kubernetes v1.26: SIG soft freeze (sig-node)" in events


def test_alarm_before_each_freeze_only(client, schedule):
    events, _ = _events(client.get("/releases/1.26/calendar.ics"))
    for summary, event in events.items():
        alarms = event.walk("VALARM")
        if "Release" in summary and "freeze" not in summary:
            assert alarms == []
        else:
            (alarm,) = alarms
            assert alarm.decoded("trigger") == -datetime.timedelta(days=1)
            assert str(alarm.get("action")) == "DISPLAY"


def test_uids_are_stable_across_requests_and_unique(client, schedule):
    first, _ = _events(client.get("/calendar.ics"))
    second, _ = _events(client.get("/calendar.ics"))
    uids = [str(e.get("uid")) for e in first.values()]
    assert len(uids) == len(set(uids)) == 4
    assert uids == [str(e.get("uid")) for e in second.values()]
    assert "release-1.26-enhancements_freeze@" in uids[0] or any("release-1.26-enhancements_freeze@" in u for u in uids)


def test_uid_survives_a_moved_freeze_and_a_reimport(schedule):
    milestone = Milestone.objects.get(kind=MilestoneKind.ENHANCEMENTS_FREEZE)
    before = milestone_uid_base(milestone)
    milestone.at += datetime.timedelta(days=2)
    milestone.save()
    milestone.delete()
    milestone.pk = None
    milestone.save()
    assert milestone_uid_base(Milestone.objects.get(kind=MilestoneKind.ENHANCEMENTS_FREEZE)) == before


def test_uid_ignores_a_freeze_rewording_but_tells_retro_parts_apart(schedule):
    milestone = Milestone.objects.get(kind=MilestoneKind.ENHANCEMENTS_FREEZE)
    before = milestone_uid_base(milestone)
    milestone.label = "Enhancements Freeze (moved)"
    assert milestone_uid_base(milestone) == before == "release-1.26-enhancements_freeze"
    part1 = MilestoneFactory(release=schedule, kind=MilestoneKind.RETROSPECTIVE, label="Release retrospective part 1")
    part2 = MilestoneFactory(release=schedule, kind=MilestoneKind.RETROSPECTIVE, label="Release retrospective part 2")
    assert milestone_uid_base(part1) == "release-1.26-retrospective-release-retrospective-part-1"
    assert milestone_uid_base(part1) != milestone_uid_base(part2)


def test_twin_milestones_get_distinct_uids(client, schedule):
    release = schedule
    MilestoneFactory(release=release, kind=MilestoneKind.OTHER, at=datetime.datetime(2022, 9, 1, tzinfo=UTC))
    MilestoneFactory(release=release, kind=MilestoneKind.OTHER, at=datetime.datetime(2022, 9, 2, tzinfo=UTC))
    _, calendar = _events(client.get("/releases/1.26/calendar.ics"))
    uids = [str(e.get("uid")) for e in calendar.walk("VEVENT")]
    assert len(uids) == len(set(uids)) == 5


def test_all_calendar_covers_every_release(client, schedule):
    events, _ = _events(client.get("/calendar.ics"))
    assert "Kubernetes v1.27: Code freeze" in events


def test_calendar_of_release_without_milestones_is_valid_and_empty(client):
    ReleaseFactory(version="1.99")
    events, calendar = _events(client.get("/releases/1.99/calendar.ics"))
    assert events == {}
    assert "1.99" in str(calendar.get("x-wr-calname"))


def test_calendar_rejects_post(client, schedule):
    assert client.post("/calendar.ics").status_code == 405


def _reference_calendar(milestones, base_url):
    """The feed as the `icalendar` package built it before the feed was written line by line: the same events."""
    from icalendar import Alarm, Event

    from releases.ical import _description, milestone_summary
    from releases.rules import FREEZE_KINDS

    calendar = Calendar()
    seen = {}
    for milestone in milestones:
        base = milestone_uid_base(milestone)
        seen[base] = seen.get(base, 0) + 1
        uid = base if seen[base] == 1 else f"{base}-{seen[base]}"
        page_url = f"{base_url}{milestone.release.get_absolute_url()}#milestone-{milestone.pk}"
        event = Event()
        event.add("uid", f"{uid}@testserver")
        event.add("summary", milestone_summary(milestone))
        if milestone.all_day:
            event.add("dtstart", milestone.date)
            event.add("dtend", milestone.date + datetime.timedelta(days=1))
            event.add("transp", "TRANSPARENT")
        else:
            event.add("dtstart", milestone.at.astimezone(UTC))
        event.add("description", _description(milestone, page_url))
        event.add("url", page_url)
        event.add("categories", ["freeze" if milestone.kind in FREEZE_KINDS else "milestone"])
        if milestone.kind in FREEZE_KINDS:
            alarm = Alarm()
            alarm.add("action", "DISPLAY")
            alarm.add("trigger", -datetime.timedelta(days=1))
            alarm.add("description", f"Tomorrow: {milestone_summary(milestone)}")
            event.add_component(alarm)
        calendar.add_component(event)
    return Calendar.from_ical(calendar.to_ical())


def _comparable(calendar):
    def props(component):
        return {key: component[key].to_ical() for key in component if key not in ("DTSTAMP", "CATEGORIES")}

    return {
        str(event["UID"]): (
            props(event),
            [str(c) for c in event.get("CATEGORIES").cats],
            [props(alarm) for alarm in event.walk("VALARM")],
        )
        for event in calendar.walk("VEVENT")
    }


def test_the_feed_holds_the_same_events_as_the_icalendar_package_made(client, schedule, settings):
    from releases import selectors

    settings.SIGTRACKER_BASE_URL = "http://testserver"
    # Text that needs escaping and folding: commas, semicolons, a backslash, line breaks, non-ASCII, a long line.
    Milestone.objects.filter(kind=MilestoneKind.RELEASE).update(
        label="v1.26.0 release; “Electrifying”, at last \\o/",
        source_text="Thursday 8th December 2022\r\nTuesday, 6th December: Release Candidate — " + "ü" * 80,
    )
    response = client.get("/calendar.ics")
    feed = Calendar.from_ical(response.content)
    assert all(len(line) <= 75 for line in response.content.split(b"\r\n"))
    reference = _reference_calendar(list(selectors.milestone_list()), "http://testserver")
    assert _comparable(feed) == _comparable(reference)
    assert len(_comparable(feed)) == 4
