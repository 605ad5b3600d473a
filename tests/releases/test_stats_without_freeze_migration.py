"""Upgrading a database whose stats gave a release with no enhancements freeze in its schedule a merge rate over its
rows as they stand: the migration marks those stats stale, and the recompute gives no rate."""

import datetime
import importlib

import pytest
from django.apps import apps

from releases.choices import EnhancementStatus, MilestoneKind
from releases.models import ReleaseStats
from tests.factories import MilestoneFactory, ReleaseFactory, SigFactory, TrackedEnhancementFactory

pytestmark = pytest.mark.django_db

migration = importlib.import_module("releases.migrations.0015_stats_without_enhancements_freeze_recomputed")
UTC = datetime.UTC


def test_only_the_stats_of_releases_without_an_enhancements_freeze_are_marked_stale():
    from releases.services.stats import release_stats_compute

    v14 = ReleaseFactory(version="1.4", cycle_start=datetime.date(2016, 7, 3))
    MilestoneFactory(release=v14, kind=MilestoneKind.RELEASE, at=datetime.datetime(2016, 9, 20, tzinfo=UTC))
    v24 = ReleaseFactory(version="1.24")
    MilestoneFactory(
        release=v24, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=datetime.datetime(2022, 2, 4, 2, tzinfo=UTC)
    )
    # A SIG's own enhancements freeze (one of its milestones) is not the release's.
    v13 = ReleaseFactory(version="1.3", cycle_start=datetime.date(2016, 3, 21))
    MilestoneFactory(release=v13, kind=MilestoneKind.RELEASE, at=datetime.datetime(2016, 7, 1, tzinfo=UTC))
    MilestoneFactory(
        release=v13,
        sig=SigFactory(),
        kind=MilestoneKind.ENHANCEMENTS_FREEZE,
        at=datetime.datetime(2016, 5, 1, tzinfo=UTC),
    )
    for release in (v13, v14, v24):
        TrackedEnhancementFactory(release=release, status=EnhancementStatus.DONE)
    release_stats_compute()
    # As an older release stored them: v1.4's row said 1 of 1 tracked, 100 %.
    ReleaseStats.objects.filter(release=v14).update(merge_rate=1.0, tracked=1)

    migration.mark_stale(apps, None)

    computed = dict(ReleaseStats.objects.filter(sig__isnull=True).values_list("release__version", "computed_at"))
    assert computed["1.3"].year == computed["1.4"].year == 1970 and computed["1.24"].year > 1970
    release_stats_compute()
    assert ReleaseStats.objects.get(release=v14, sig__isnull=True).merge_rate is None
    assert ReleaseStats.objects.get(release=v24, sig__isnull=True).merge_rate == 1.0
