"""Celery tasks of the releases app: thin wrappers that parse arguments and call one service.

Every task here is safe to run twice (stats are recomputed from scratch, states written only where they differ), so all
are `acks_late`: a worker that dies mid-task leaves its message to be redelivered rather than lost. Without
CELERY_BROKER_URL they run eagerly in-process.

Each runs on the queue its urgency calls for (CELERY_TASK_ROUTES: `stats`, `default`; the GitHub sync's task is
in `github_sync.tasks`, the reminders' in `reminders.tasks`) and has soft and hard time limits: past the soft one
the task gets SoftTimeLimitExceeded and cleans up on its way out; past the hard one the worker kills the child
process.
"""

import logging

from celery import shared_task
from django.utils import timezone

from releases.services import stats

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, soft_time_limit=120, time_limit=180)
def compute_release_stats(release_id: int) -> int:
    """Recompute one release's stats (queued, debounced, by `release_stats_request`)."""
    return len(stats.release_stats_compute_queued(release_id=release_id))


@shared_task(acks_late=True, soft_time_limit=900, time_limit=960)
def compute_all_release_stats() -> int:
    """Nightly: recompute every release's stats."""
    return len(stats.release_stats_compute(release_ids=None))


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def refresh_release_states() -> str:
    """Hourly (beat): the stored state of each release follows its dates (planning, active, released).

    Safe to run twice: it writes only rows whose state differs from what their dates say now."""
    from releases.services.release_state import release_states_refresh

    changed = release_states_refresh(now=timezone.now())
    for line in changed:
        logger.info("release state: %s", line)
    return f"{len(changed)} release state(s) changed"
