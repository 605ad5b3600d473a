"""History recorded after the fact (curated fixtures, retro tables in meeting notes) carries assumed instants:
the funnel, the release page and the KEP timeline say so instead of inventing where a KEP stood."""

import datetime

import pytest

from releases.choices import MilestoneKind
from releases.models import EnhancementStatusChange, ReleaseStats
from releases.services import release_stats_compute, tracked_enhancement_set_status
from tests.factories import KepFactory, MilestoneFactory, ReleaseFactory, SigFactory, TrackedEnhancementFactory

pytestmark = pytest.mark.django_db
UTC = datetime.UTC
PRR = datetime.datetime(2022, 1, 27, 2, 0, tzinfo=UTC)
EF = datetime.datetime(2022, 2, 4, 2, 0, tzinfo=UTC)
RETRO = datetime.datetime(2022, 4, 26, 17, 0, tzinfo=UTC)


@pytest.fixture
def release_with_assumed_history():
    """Like the 1.24 fixture: each KEP's recorded history starts at the enhancements freeze (assumed) and
    ends with the status the retro listed (assumed)."""
    release = ReleaseFactory(version="1.24")
    MilestoneFactory(release=release, kind=MilestoneKind.PRR_FREEZE, at=PRR)
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=EF)
    sig = SigFactory(slug="sig-node")
    rows = []
    for number, final in ((2400, "done"), (2401, "removed_from_milestone"), (2402, "removed_from_milestone")):
        row = TrackedEnhancementFactory(
            release=release, kep=KepFactory(number=number, owning_sig=sig), sig=sig, status=final, created_at=EF
        )
        EnhancementStatusChange.objects.create(
            tracked_enhancement=row, to_status="tracked_enhancements", changed_at=EF, assumed=True, source="fixture"
        )
        EnhancementStatusChange.objects.create(
            tracked_enhancement=row,
            from_status="tracked_enhancements",
            to_status=final,
            changed_at=RETRO,
            assumed=True,
            source="fixture",
        )
        rows.append(row)
    return release, rows


def test_funnel_says_not_recorded_before_assumed_history_begins(client, release_with_assumed_history):
    release, _ = release_with_assumed_history
    release_stats_compute(release_ids=[release.pk])
    funnel = {step["step"]: step for step in ReleaseStats.objects.get(release=release, sig=None).funnel}
    assert funnel["prr_freeze"]["count"] == 0 and funnel["prr_freeze"]["unknown"] == 3
    assert funnel["enhancements_freeze"]["count"] == 3 and "unknown" not in funnel["enhancements_freeze"]
    page = client.get("/releases/1.24/").content.decode()
    assert "0 + 3 not recorded" in page
    assert "assumed instants" in page


def test_kep_timeline_names_no_freeze_from_assumed_history(client, release_with_assumed_history):
    page = client.get("/keps/2401/").content.decode()
    assert "Enhancements freeze" not in page.split('id="timeline"')[1]
    assert "not recorded" in page and "history assumed" in page


def test_a_reason_given_in_the_admin_shows_on_the_kep_timeline(client):
    release = ReleaseFactory(version="1.30")
    MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=EF)
    row = TrackedEnhancementFactory(release=release, kep=KepFactory(number=3100), status="at_risk_code")
    EnhancementStatusChange.objects.create(tracked_enhancement=row, to_status="at_risk_code", changed_at=PRR)
    row.refresh_from_db()
    tracked_enhancement_set_status(
        tracked_enhancement=row, status="removed_from_milestone", author="lead", note="missed code freeze: PR #123"
    )
    timeline = client.get("/keps/3100/").content.decode().split('id="timeline"')[1]
    assert "Code freeze" in timeline and "missed code freeze: PR #123" in timeline
    assert "history assumed" not in timeline
