"""Keep the stored `Release.state` equal to what the release's dates say today.

The state is a rule of the dates (`releases.rules.release_state`), read fresh wherever "the current release" is
asked (`Release.objects.current()`); the stored column is a copy for lists, filters and the API, refreshed by
the schedule import and hourly by beat, so a release moves from planning to active to released by itself.
"""

import datetime

from django.db import transaction

from releases.models import Release
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
    if moved:
        # A release that is over has figures, not progress: its stats follow its state (debounced, on commit).
        release_stats_request(release_ids=moved)
    return changed
