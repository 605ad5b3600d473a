"""The demo's living cycle (`devdata.living_cycle`): a release around the day the demo runs, built from the
fixtures' KEPs, that the dashboard, `/me/` and the reminders treat as the current release."""

import datetime
from io import StringIO

import pytest
from django.core.management import call_command

from community.models import Sig
from devdata.living_cycle import DEMO_NAME, demo_cycle_ensure
from people.models import Profile
from releases.choices import EnhancementStatus, MilestoneKind, ReleaseState
from releases.models import Milestone, Release, TrackedEnhancement
from tests.factories import KepFactory, PersonFactory, ReleaseFactory, SigFactory

pytestmark = pytest.mark.django_db
UTC = datetime.UTC


@pytest.fixture
def history():
    """What the fixtures hold, in small: a released 1.27 and SIG Node KEPs with their authors."""
    ReleaseFactory(
        version="1.27",
        state=ReleaseState.RELEASED,
        cycle_start=datetime.date(2023, 1, 9),
        planned_release_date=datetime.date(2023, 4, 11),
    )
    node = SigFactory(slug="sig-node", mailing_list="")
    owner = PersonFactory(github="owner", email="owner@example.com")
    for number in (2727, 1287, 3386, 4033):
        KepFactory(number=number, owning_sig=node).authors.add(owner)
    return owner


def test_the_demo_cycle_surrounds_now_and_is_the_current_release(history, client, django_user_model):
    now = datetime.datetime.now(UTC)
    admin = django_user_model.objects.create_user("admin")
    cycle = demo_cycle_ensure(now=now, user=admin)

    release = cycle.release
    assert (release.version, release.name, cycle.created) == ("1.28", DEMO_NAME, True)
    assert release.cycle_start < now.date() < release.planned_release_date
    assert Release.objects.current_cycle(now=now).release == release
    freeze = release.milestones.get(kind=MilestoneKind.ENHANCEMENTS_FREEZE)
    assert now < freeze.at < now + datetime.timedelta(days=7)
    rows = TrackedEnhancement.objects.filter(release=release)
    assert rows.count() == 4 and rows.filter(status=EnhancementStatus.AT_RISK_ENHANCEMENTS).count() == 2
    assert all("demo data" in row.notes for row in rows)
    # A digest would go somewhere that can never deliver, since the SIG had no list.
    assert Sig.objects.get(slug="sig-node").mailing_list.endswith("@example.invalid")

    page = client.get("/").content.decode()
    assert "v1.28" in page and "in <strong>" in page and "No upcoming freeze" not in page
    client.force_login(admin)
    assert Profile.objects.get(user=admin).person == history
    assert "KEP-2727" in client.get("/me/").content.decode()

    out = StringIO()
    at = (freeze.at - datetime.timedelta(days=7)).isoformat()
    call_command("send_freeze_reminders", "--dry-run", "--now", at, stdout=out)
    assert "send: digest to sig-node-demo@example.invalid" in out.getvalue()


def test_run_again_later_the_cycle_moves_to_that_day_without_new_rows(history):
    first = demo_cycle_ensure(now=datetime.datetime(2026, 12, 1, tzinfo=UTC))
    counts = (Release.objects.count(), Milestone.objects.count(), TrackedEnhancement.objects.count())
    later = datetime.datetime(2027, 3, 15, tzinfo=UTC)

    again = demo_cycle_ensure(now=later)

    assert (again.release.pk, again.created) == (first.release.pk, False)
    assert (Release.objects.count(), Milestone.objects.count(), TrackedEnhancement.objects.count()) == counts
    assert Release.objects.current_cycle(now=later).release.pk == first.release.pk
    assert again.enhancements_freeze.at == datetime.datetime(2027, 3, 21, 2, 0, tzinfo=UTC)


def test_without_any_release_there_is_nothing_to_follow(db):
    assert demo_cycle_ensure(now=datetime.datetime.now(UTC)) is None
