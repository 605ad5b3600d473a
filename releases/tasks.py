"""Celery tasks of the releases app: thin wrappers that parse arguments and call one service.

Every task here is safe to run twice (stats are recomputed from scratch; deliveries go through their
once-per-recipient records), so all are `acks_late`: a worker that dies mid-task leaves its message to be
redelivered rather than lost. Without CELERY_BROKER_URL they run eagerly in-process.

Each runs on the queue its urgency calls for (CELERY_TASK_ROUTES: `reminders`, `github`, `stats`) and has soft
and hard time limits: past the soft one the task gets SoftTimeLimitExceeded and cleans up on its way out; past the
hard one the worker kills the child process.
"""

import datetime
import logging
import random

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from releases import metrics
from releases.services import reminders, stats

logger = logging.getLogger(__name__)

#: Retries of a delivery after transient SMTP failures; the backoff stays under Redis's visibility timeout.
DELIVERY_MAX_RETRIES = 6
DELIVERY_BACKOFF_MAX = 600
#: Deliveries per task: one board read and one SMTP connection serve a batch.
DELIVERY_BATCH = 25


def _instant(value: str | None) -> datetime.datetime:
    if not value:
        return timezone.now()
    parsed = parse_datetime(value)
    if parsed is None:
        raise ValueError(f"now: not an ISO date-time: {value!r}")
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed, datetime.UTC)


@shared_task(acks_late=True, soft_time_limit=120, time_limit=180)
def compute_release_stats(release_id: int) -> int:
    """Recompute one release's stats (queued, debounced, by `release_stats_request`)."""
    return len(stats.release_stats_compute_queued(release_id=release_id))


@shared_task(acks_late=True, soft_time_limit=900, time_limit=960)
def compute_all_release_stats() -> int:
    """Nightly: recompute every release's stats."""
    return len(stats.release_stats_compute(release_ids=None))


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def send_due_freeze_reminders(now: str | None = None) -> int:
    """Every 15 minutes (beat): claim the reminders due now and queue their deliveries in batches.

    Deliveries whose sender died (stale lease) or whose batch was lost are queued again here, so a
    killed worker's batch is finished by the next beat.
    """
    instant = _instant(now)
    delivery_ids = reminders.reminder_deliveries_claim(now=instant)
    for start in range(0, len(delivery_ids), DELIVERY_BATCH):
        deliver_reminders.delay(delivery_ids[start : start + DELIVERY_BATCH], instant.isoformat())
    if delivery_ids:
        logger.info("queued %d reminder deliveries due at %s", len(delivery_ids), instant.isoformat())
    return len(delivery_ids)


# Under the delivery lease (SIGTRACKER_REMINDER_LEASE_SECONDS, 600): a batch killed at its hard limit is handed out
# again by a later beat, never while it may still be sending.
@shared_task(bind=True, acks_late=True, max_retries=DELIVERY_MAX_RETRIES, soft_time_limit=240, time_limit=300)
def deliver_reminders(self, delivery_ids: list[int], as_of: str) -> dict:
    """Send a batch of reminder emails, each once per recipient (at most one duplicate, recognisable by its
    Message-ID, and only after a crash between the SMTP server's acceptance and the commit that records
    it). Those that hit a transient SMTP failure are retried (just those) with exponential backoff, and
    marked failed after the last retry."""
    result = reminders.reminder_deliver_batch(delivery_ids=delivery_ids, as_of=_instant(as_of))
    summary = {
        "sent": len(result.sent),
        "skipped": len(result.skipped),
        "elsewhere": len(result.elsewhere),
        "failed": len(result.failed),
        "retrying": len(result.retry),
    }
    if not result.retry:
        return summary
    if self.request.retries >= self.max_retries:
        for delivery_id, exc in result.retry.items():
            reminders.reminder_delivery_give_up(delivery_id=delivery_id, error=f"{type(exc).__name__}: {exc}")
        summary.update(failed=summary["failed"] + len(result.retry), retrying=0)
        return summary
    if self.request.is_eager:
        # No broker to hold a delayed retry: the claims are released, and the next run of the beat task
        # or of `send_freeze_reminders` within the grace period sends them.
        return summary
    base = settings.SIGTRACKER_REMINDER_RETRY_BACKOFF_SECONDS
    countdown = min(DELIVERY_BACKOFF_MAX, base * 2**self.request.retries) * random.uniform(1, 1.25)
    first = next(iter(result.retry.values()))
    raise self.retry(args=[list(result.retry), as_of], exc=first, countdown=countdown)


# The sync stops itself at GITHUB_SYNC_DEADLINE; these limits are the backstop (a sync stuck in the database, say).
# Past the soft one the sync's lock is released on the way out; past the hard one the child dies, and its database
# session, and the lock with it. Either way the next beat's sync starts cleanly.
@shared_task(
    acks_late=True,
    soft_time_limit=int(settings.GITHUB_SYNC_DEADLINE) + 60,
    time_limit=int(settings.GITHUB_SYNC_DEADLINE) + 120,
)
def sync_github_current_release() -> str:
    """Every 15 minutes (beat): sync the current release from its GitHub tracking issues.

    Safe to run twice, or beside a manual `sync_github`: syncs of one release take a lock and write only what
    differs from the database. GitHub failures are logged, not retried here: the next beat is the retry.
    """
    from releases.services import github_sync

    if not settings.GITHUB_TOKEN:
        logger.info("GitHub sync skipped: GITHUB_TOKEN is not set")
        return "skipped: no GITHUB_TOKEN"
    try:
        report = github_sync.github_current_release_sync()
    except (github_sync.GitHubSyncError, github_sync.GitHubError) as exc:
        logger.warning("GitHub sync failed: %s", exc)
        return f"failed: {exc}"
    except SoftTimeLimitExceeded:
        logger.warning("GitHub sync cancelled at its time limit; the next beat starts again")
        return "cancelled: time limit"
    if report is None:
        return "skipped: no release"
    logger.info("GitHub sync: %s", report.summary())
    for line in report.skipped:
        logger.warning("GitHub sync skipped %s", line)
    if report.stopped:
        logger.warning("GitHub sync stopped: %s", report.stopped)
    else:
        metrics.github_sync_succeeded(version=report.version)
    return report.summary() + _board_sync()


def _board_sync() -> str:
    """The current release's tracking board after its labels (the board wins for status); failures logged."""
    from releases.services import board_sync

    try:
        board = board_sync.board_current_release_sync()
    except (board_sync.GitHubSyncError, board_sync.GitHubError) as exc:
        logger.warning("Board sync failed: %s", exc)
        return f" Board: failed: {exc}"
    if board is None:
        return ""
    logger.info("Board sync: %s", board.summary())
    return " " + board.summary()


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def refresh_release_states() -> str:
    """Hourly (beat): the stored state of each release follows its dates (planning, active, released).

    Safe to run twice: it writes only rows whose state differs from what their dates say now."""
    from releases.services.release_state import release_states_refresh

    changed = release_states_refresh(now=timezone.now())
    for line in changed:
        logger.info("release state: %s", line)
    return f"{len(changed)} release state(s) changed"
