"""Keep the stored `Release.state` equal to what the release's dates say today.

The state is a rule of the dates (`releases.rules.release_state`), read fresh wherever "the current release" is
asked (`Release.objects.current()`); the stored column is a copy for lists, filters and the API, refreshed by
the schedule import and hourly by beat, so a release moves from planning to active to released by itself.

Its figures follow its dates the same way: stats computed before one of the release's milestones show that freeze
as still ahead, so once the milestone has passed they are recomputed (a release's whole-project stats row is
enough to tell: every SIG's row is computed with it). Stats stored by an earlier definition of a figure are
marked as computed at the epoch by a data migration, and the first refresh after the upgrade recomputes them.
"""

import datetime

from django.db import transaction
from django.db.models import Exists, OuterRef

from releases.models import Milestone, Release, ReleaseStats
from releases.rules import release_states
from releases.services.stats import release_stats_request


@transaction.atomic
def release_states_refresh(*, now: datetime.datetime) -> list[str]:
    """Write the state of every release whose stored state differs from its dates at `now`; return
    "1.24: active -> released" lines for those changed. Safe to run twice: a second run finds nothing to change."""
    changed, moved = [], []
    for release, state in release_states(Release.objects.with_known_dates().order_by("major", "minor"), now=now):
        if release.state != state:
            changed.append(f"{release.version}: {release.state} -> {state}")
            Release.objects.filter(pk=release.pk).update(state=state)
            moved.append(release.pk)
    stale = _stats_computed_before_a_passed_milestone(now=now, exclude=moved)
    changed += [f"{version}: figures recomputed, a milestone has passed since" for _, version in stale]
    if moved or stale:
        # A release that is over has figures, not progress: its stats follow its state (debounced, on commit).
        release_stats_request(release_ids=[*moved, *(pk for pk, _ in stale)])
    return changed


def _stats_computed_before_a_passed_milestone(*, now: datetime.datetime, exclude: list[int]) -> list[tuple[int, str]]:
    """(release id, version) of releases whose figures were computed before a schedule milestone of theirs that
    is past at `now`."""
    passed_since = Milestone.objects.filter(
        release=OuterRef("release"), sig__isnull=True, at__gt=OuterRef("computed_at"), at__lte=now
    )
    return list(
        ReleaseStats.objects.filter(sig__isnull=True)
        .exclude(release_id__in=exclude)
        .filter(Exists(passed_since))
        .order_by("release__major", "release__minor")
        .values_list("release_id", "release__version")
    )
