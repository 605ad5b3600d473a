"""/me/ (what I owe by when), its calendar at a resettable secret URL, and the preferences page."""

import datetime

import icalendar
import pytest
from django.utils import timezone

from community.models import Person, Sig
from people.models import PreferenceChange, Profile
from releases.choices import EnhancementStatus, MilestoneKind, ReleaseState
from releases.rules import REQUIREMENTS
from retros.choices import ActionStatus, RetroCategory
from tests.factories import (
    KepFactory,
    MeetingFactory,
    MilestoneFactory,
    PersonFactory,
    ReleaseFactory,
    RetroItemFactory,
    RetrospectiveFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(django_user_model):
    node = SigFactory(slug="sig-node")
    now = timezone.now()
    # The current release is the one whose dates surround today; the next one's cycle has not begun.
    day = datetime.timedelta(days=1)
    current = ReleaseFactory(
        version="1.33",
        state=ReleaseState.ACTIVE,
        cycle_start=now.date() - 30 * day,
        planned_release_date=now.date() + 60 * day,
    )
    following = ReleaseFactory(
        version="1.34",
        state=ReleaseState.PLANNING,
        cycle_start=now.date() + 70 * day,
        planned_release_date=now.date() + 160 * day,
    )
    old = ReleaseFactory(version="1.32", state=ReleaseState.RELEASED)
    freeze = MilestoneFactory(
        release=current, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=now + datetime.timedelta(days=3, hours=2)
    )
    MilestoneFactory(release=current, kind=MilestoneKind.CODE_FREEZE, at=now + datetime.timedelta(days=30))
    MilestoneFactory(release=following, kind=MilestoneKind.PRR_FREEZE, at=now + datetime.timedelta(days=90))
    me = PersonFactory(github="kepowner", email="owner@example.com")
    other = PersonFactory(github="someoneelse")
    at_risk = KepFactory(number=2727, title="gRPC probes", owning_sig=node)
    at_risk.authors.add(me)
    reviewed = KepFactory(number=1287, title="In-place resize", owning_sig=node)
    reviewed.reviewers.add(me)
    not_mine = KepFactory(number=4000, title="Not mine", owning_sig=node)
    not_mine.authors.add(other)
    old_kep = KepFactory(number=3000, title="Shipped long ago", owning_sig=node)
    old_kep.authors.add(me)
    TrackedEnhancementFactory(release=current, kep=at_risk, status=EnhancementStatus.AT_RISK_ENHANCEMENTS)
    TrackedEnhancementFactory(release=current, kep=reviewed, status=EnhancementStatus.TRACKED_ENHANCEMENTS)
    TrackedEnhancementFactory(release=following, kep=at_risk, status=EnhancementStatus.AT_RISK_PRR)
    TrackedEnhancementFactory(release=current, kep=not_mine, status=EnhancementStatus.AT_RISK_ENHANCEMENTS)
    TrackedEnhancementFactory(release=old, kep=old_kep, status=EnhancementStatus.DONE)
    retro = RetrospectiveFactory(release=old, sig=node)
    RetroItemFactory(
        retrospective=retro, category=RetroCategory.ACTION_ITEM, status=ActionStatus.OPEN, owner=me,
        text="Write the probe docs", due_release=current,
    )  # fmt: skip
    RetroItemFactory(
        retrospective=retro, category=RetroCategory.ACTION_ITEM, status=ActionStatus.DONE, owner=me, text="Done one"
    )
    MeetingFactory(sig=node, date=now.date() - datetime.timedelta(days=7))
    upcoming = MeetingFactory(sig=node, date=now.date() + datetime.timedelta(days=5))
    user = django_user_model.objects.create_user("kepowner")
    profile = Profile.objects.create(person=me, user=user, time_zone="Asia/Tokyo")
    return {"me": me, "user": user, "profile": profile, "freeze": freeze, "meeting": upcoming}


def test_me_needs_a_sign_in(client):
    response = client.get("/me/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_me_lists_what_i_owe_by_when(client, world):
    client.force_login(world["user"])
    page = client.get("/me/").content.decode()
    assert "KEP-2727" in page and "KEP-1287" in page
    assert "KEP-4000" not in page and "KEP-3000" not in page
    # What the enhancements freeze still asks of the at-risk KEP, from the rules, and the deadline in Tokyo time.
    assert REQUIREMENTS[MilestoneKind.ENHANCEMENTS_FREEZE][2] in page
    tokyo = world["freeze"].at.astimezone(datetime.timezone(datetime.timedelta(hours=9)))
    assert tokyo.strftime("%H:%M") + " JST" in page
    assert "reviewer" in page and "author" in page
    assert "Write the probe docs" in page and "Done one" not in page
    assert world["meeting"].date.strftime("%-d %b %Y") in page


def test_an_account_without_a_person_gets_a_plain_answer(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("breakglass"))
    assert client.get("/me/").status_code == 404


def test_calendar_at_the_secret_url_and_reset(client, world):
    client.force_login(world["user"])
    secret = world["profile"].calendar_secret
    client.logout()  # a calendar app sends no cookie
    response = client.get(f"/me/calendar/{secret}.ics")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/calendar")
    calendar = icalendar.Calendar.from_ical(response.content)
    events = [c for c in calendar.walk("VEVENT")]
    # Only freezes where one of my KEPs still needs something: the enhancements freeze (2727 at risk) and the next
    # release's PRR freeze; 1287 is already tracked for enhancements freeze and the code freeze is not next.
    summaries = sorted(str(e["summary"]) for e in events)
    assert len(events) == 2 and all("KEP-2727" in s for s in summaries)
    assert "KEP-1287" not in response.content.decode()
    assert client.get("/me/calendar/not-the-secret.ics").status_code == 404

    client.force_login(world["user"])
    assert client.post("/me/calendar/reset/").status_code == 302
    world["profile"].refresh_from_db()
    assert world["profile"].calendar_secret != secret
    client.logout()
    assert client.get(f"/me/calendar/{secret}.ics").status_code == 404
    assert client.get(f"/me/calendar/{world['profile'].calendar_secret}.ics").status_code == 200


def test_preferences_are_set_by_the_person_and_logged(client, world):
    client.force_login(world["user"])
    assert client.get("/me/preferences/").status_code == 200
    response = client.post(
        "/me/preferences/",
        {
            "email": "new@example.com",
            "email_reminders": "on",
            "reminder_offsets": ["168", "0"],
            "time_zone": "Europe/Berlin",
        },
    )
    assert response.status_code == 302
    me = Person.objects.get(pk=world["me"].pk)
    profile = Profile.objects.get(person=me)
    assert me.email == "new@example.com" and profile.reminder_offsets == [168, 0]
    assert profile.time_zone == "Europe/Berlin" and profile.email_reminders and not profile.slack_dm
    logged = {c.field: (c.old, c.new, c.user_id) for c in PreferenceChange.objects.filter(person=me)}
    assert logged["email"] == ("owner@example.com", "new@example.com", world["user"].pk)
    assert logged["time_zone"] == ("Asia/Tokyo", "Europe/Berlin", world["user"].pk)
    assert "reminder_offsets" in logged and "slack_dm" not in logged
    # Opting out entirely, from the same page.
    client.post("/me/preferences/", {"email": "new@example.com", "reminders_opt_out": "on"})
    assert Person.objects.get(pk=me.pk).reminders_opt_out


def test_preferences_refuse_a_bad_time_zone(client, world):
    client.force_login(world["user"])
    response = client.post("/me/preferences/", {"email": "x@example.com", "time_zone": "Mars/Olympus"})
    assert response.status_code == 200
    assert Profile.objects.get(pk=world["profile"].pk).time_zone == "Asia/Tokyo"


def test_me_my_calendar_and_the_dashboard_list_a_kepless_feature_assigned_to_me(client, world):
    # A feature sheet's feature naming no KEP, assigned to me: listed by its name, with no KEP link or KEP roles.
    from releases.choices import HistorySource
    from releases.models import Release
    from releases.services.tracking import tracked_enhancement_create

    tracked_enhancement_create(
        release=Release.objects.get(version="1.33"),
        feature_name="Sheet feature",
        sig=Sig.objects.get(slug="sig-node"),
        status=EnhancementStatus.AT_RISK_ENHANCEMENTS,
        source=HistorySource.FEATURE_SHEET,
        assignee=world["me"],
    )
    client.force_login(world["user"])
    response = client.get("/me/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Sheet feature (feature sheet, no KEP)" in page and "KEP-2727" in page
    secret = world["profile"].calendar_secret
    client.logout()
    calendar = icalendar.Calendar.from_ical(client.get(f"/me/calendar/{secret}.ics").content)
    summaries = [str(event["summary"]) for event in calendar.walk("VEVENT")]
    assert any("Sheet feature (feature sheet, no KEP)" in summary for summary in summaries)
    # The dashboard's at-risk list of the current release names it too.
    dashboard = client.get("/")
    assert dashboard.status_code == 200 and "Sheet feature" in dashboard.content.decode()
