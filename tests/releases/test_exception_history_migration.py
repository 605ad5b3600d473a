"""Upgrading a database imported before exception-file opt-ins were marked assumed: the migration corrects the
history (append-only: a superseding row) and the recomputed stats no longer count those KEPs as untracked."""

import datetime
import importlib

import pytest
from django.apps import apps

from releases.choices import EnhancementStatus, HistorySource, MilestoneKind, ReleaseState
from releases.models import EnhancementStatusChange, ReleaseStats
from releases.services.stats import release_stats_compute
from releases.services.tracking import tracked_enhancement_create
from tests.factories import KepFactory, MilestoneFactory, ReleaseFactory

pytestmark = pytest.mark.django_db

migration = importlib.import_module("releases.migrations.0014_exception_file_opt_ins_assumed")
UTC = datetime.UTC


def test_an_opt_in_stored_by_an_older_import_is_corrected_and_the_release_no_longer_says_0_tracked():
    release = ReleaseFactory(
        version="1.25", state=ReleaseState.RELEASED, actual_release_date=datetime.date(2022, 8, 23)
    )
    MilestoneFactory(
        release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=datetime.datetime(2022, 6, 24, 1, tzinfo=UTC)
    )
    MilestoneFactory(release=release, kind=MilestoneKind.RELEASE, at=datetime.datetime(2022, 8, 23, tzinfo=UTC))
    # As the importer wrote it before: the request's day as the opt-in's instant, not assumed.
    row = tracked_enhancement_create(
        release=release,
        kep=KepFactory(number=127),
        status=EnhancementStatus.EXCEPTION_PENDING,
        source=HistorySource.EXCEPTION_FILE,
        author="exceptions.yaml:3",
        at=datetime.datetime(2022, 8, 2, tzinfo=UTC),
        note=migration.OPT_IN_NOTE,
    )
    release_stats_compute()
    # An exception file gives its SIG's figures, not the release's (`releases.rules.figures`).
    assert ReleaseStats.objects.get(release=release, sig__isnull=True).tracked is None
    before = ReleaseStats.objects.get(release=release, sig=row.sig)
    assert (before.tracked, before.not_recorded) == (0, 0)  # "0 tracked at enhancements freeze": untrue

    migration.mark_assumed(apps, None)
    migration.mark_assumed(apps, None)  # a second run finds nothing left to correct

    old, new = EnhancementStatusChange.all_objects.filter(tracked_enhancement=row).order_by("pk")
    assert (old.assumed, new.assumed, new.supersedes_id) == (False, True, old.pk)
    assert list(row.history.values_list("pk", flat=True)) == [new.pk]
    assert ReleaseStats.objects.get(release=release, sig__isnull=True).computed_at.year == 1970
    release_stats_compute()
    after = ReleaseStats.objects.get(release=release, sig=row.sig)
    assert (after.not_recorded, after.tracked_at_freeze, after.merge_rate) == (1, None, None)
