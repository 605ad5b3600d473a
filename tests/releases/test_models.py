import datetime

import pytest
from django.db import IntegrityError, transaction

from releases.models import Release, parse_version
from tests.factories import (
    KepFactory,
    ReleaseFactory,
    RetroItemFactory,
    RetrospectiveFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db


def rejected(**create):
    """Assert that the database itself refuses the row."""
    factory, kwargs = create.pop("factory"), create
    with pytest.raises(IntegrityError), transaction.atomic():
        factory(**kwargs)


@pytest.mark.parametrize("raw,expected", [("1.24", (1, 24)), ("v1.9", (1, 9)), ("1.10.0", (1, 10)), (" v2.0 ", (2, 0))])
def test_parse_version_accepts_upstream_spellings(raw, expected):
    assert parse_version(raw) == expected


@pytest.mark.parametrize("raw", ["", "1", "v1.x", "1.24-beta", "one.two"])
def test_parse_version_rejects_junk(raw):
    with pytest.raises(ValueError):
        parse_version(raw)


def test_releases_order_numerically_not_alphabetically():
    for version in ["1.10", "1.9", "1.24", "1.2", "2.0"]:
        Release.objects.create(version=version)
    assert list(Release.objects.values_list("version", flat=True)) == ["1.2", "1.9", "1.10", "1.24", "2.0"]


def test_release_version_is_normalised():
    assert Release.objects.create(version="v1.27").version == "1.27"


def test_release_version_unique():
    ReleaseFactory(version="1.24")
    with pytest.raises(IntegrityError), transaction.atomic():
        Release.objects.create(version="v1.24")


def test_release_cycle_must_start_before_release_day():
    with pytest.raises(IntegrityError), transaction.atomic():
        Release.objects.create(
            version="1.50", cycle_start=datetime.date(2022, 6, 1), planned_release_date=datetime.date(2022, 1, 1)
        )


def test_release_state_checked_by_database():
    release = ReleaseFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Release.objects.filter(pk=release.pk).update(state="shipped")


def test_one_tracked_row_per_release_and_kep():
    row = TrackedEnhancementFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        TrackedEnhancementFactory(release=row.release, kep=row.kep)


def test_tracked_status_checked_by_database():
    row = TrackedEnhancementFactory()
    from releases.models import TrackedEnhancement, status_writer

    with pytest.raises(IntegrityError), transaction.atomic(), status_writer():
        TrackedEnhancement.objects.filter(pk=row.pk).update(status="merged")


def test_a_stored_status_changes_only_through_the_tracking_service():
    """No admin form, import or shell session can change a status without its history row."""
    from releases.models import StatusWriteRefused, TrackedEnhancement
    from releases.services import tracked_enhancement_set_status

    TrackedEnhancementFactory(status="at_risk_code")
    row = TrackedEnhancement.objects.get()
    row.status = "done"
    with pytest.raises(StatusWriteRefused):
        row.save()
    with pytest.raises(StatusWriteRefused):
        TrackedEnhancement.objects.filter(pk=row.pk).update(status="done")
    with pytest.raises(StatusWriteRefused):
        TrackedEnhancement.objects.bulk_update([row], ["status"])
    row.refresh_from_db()
    row.notes = "other fields save as usual"
    row.save()
    tracked_enhancement_set_status(tracked_enhancement=row, status="done", author="shell")
    row = TrackedEnhancement.objects.get()
    assert row.status == "done"
    assert [(c.from_status, c.to_status) for c in row.history.all()] == [("at_risk_code", "done")]


def test_retro_tally_cannot_merge_more_than_tracked():
    with pytest.raises(IntegrityError), transaction.atomic():
        RetrospectiveFactory(recorded_tracked=5, recorded_merged=6)


def test_retro_tally_needs_both_figures():
    with pytest.raises(IntegrityError), transaction.atomic():
        RetrospectiveFactory(recorded_tracked=5)


def test_retro_item_status_only_on_action_items():
    with pytest.raises(IntegrityError), transaction.atomic():
        RetroItemFactory(category="went_well", status="open")
    with pytest.raises(IntegrityError), transaction.atomic():
        RetroItemFactory(category="action_item", status="")
    assert RetroItemFactory(category="action_item", status="open").pk


def test_stats_merge_rate_within_range():
    from releases.models import ReleaseStats

    release = ReleaseFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        ReleaseStats.objects.create(release=release, tracked=2, done=1, merge_rate=1.5)
    with pytest.raises(IntegrityError), transaction.atomic():
        ReleaseStats.objects.create(release=release, tracked=1, done=2, merge_rate=1.0)


def test_stats_unique_per_release_for_all_sigs_and_per_sig():
    from releases.models import ReleaseStats

    release = ReleaseFactory()
    kep = KepFactory()
    ReleaseStats.objects.create(release=release)
    ReleaseStats.objects.create(release=release, sig=kep.owning_sig)
    with pytest.raises(IntegrityError), transaction.atomic():
        ReleaseStats.objects.create(release=release)
    with pytest.raises(IntegrityError), transaction.atomic():
        ReleaseStats.objects.create(release=release, sig=kep.owning_sig)


def test_milestone_exception_window_closes_after_freeze():
    from django.utils import timezone

    from releases.models import Milestone

    release = ReleaseFactory()
    now = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        Milestone.objects.create(release=release, kind="code_freeze", at=now, exception_deadline=now)


def test_milestone_kind_checked_by_database():
    from django.utils import timezone

    from releases.models import Milestone

    release = ReleaseFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Milestone.objects.create(release=release, kind="party", at=timezone.now())
