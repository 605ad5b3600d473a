"""Celery tasks of the releases app: thin wrappers that parse arguments and call one service.

Every task here is safe to run twice (stats are recomputed from scratch; deliveries go through their
exactly-once records), so all are `acks_late`: a worker that dies mid-task leaves its message to be
redelivered rather than lost. Without CELERY_BROKER_URL they run eagerly in-process.
"""

import datetime
import logging
import random

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from releases.services import reminders, stats

logger = logging.getLogger(__name__)

#: Retries of a delivery after transient SMTP failures; the backoff stays under Redis's visibility timeout.
DELIVERY_MAX_RETRIES = 6
DELIVERY_BACKOFF_MAX = 600


def _instant(value: str | None) -> datetime.datetime:
    if not value:
        return timezone.now()
    parsed = parse_datetime(value)
    if parsed is None:
        raise ValueError(f"now: not an ISO date-time: {value!r}")
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed, datetime.UTC)


@shared_task(acks_late=True)
def compute_release_stats(release_id: int) -> int:
    """Recompute one release's stats (queued, debounced, by `release_stats_request`)."""
    # Clear the debounce key before computing, so changes committed while we run queue another job.
    cache.delete(stats.pending_key(release_id))
    return len(stats.release_stats_compute(release_ids=[release_id]))


@shared_task(acks_late=True)
def compute_all_release_stats() -> int:
    """Nightly: recompute every release's stats."""
    return len(stats.release_stats_compute(release_ids=None))


@shared_task(acks_late=True)
def send_due_freeze_reminders(now: str | None = None) -> int:
    """Every 15 minutes (beat): claim the reminders due now and queue one delivery task per recipient.

    Deliveries whose sender died (stale lease) are queued again here, so a killed worker's batch is
    finished by the next beat.
    """
    instant = _instant(now)
    delivery_ids = reminders.reminder_deliveries_claim(now=instant)
    for delivery_id in delivery_ids:
        deliver_reminder.delay(delivery_id, instant.isoformat())
    if delivery_ids:
        logger.info("queued %d reminder deliveries due at %s", len(delivery_ids), instant.isoformat())
    return len(delivery_ids)


@shared_task(bind=True, acks_late=True, max_retries=DELIVERY_MAX_RETRIES)
def deliver_reminder(self, delivery_id: int, as_of: str) -> str:
    """Send one reminder email, exactly once; transient SMTP failures retry with exponential backoff."""
    try:
        return reminders.reminder_deliver(delivery_id=delivery_id, as_of=_instant(as_of))
    except reminders.DeliveryError:
        return "failed"
    except Exception as exc:
        if not reminders.is_transient(exc):
            raise
        if self.request.retries >= self.max_retries:
            reminders.reminder_delivery_give_up(delivery_id=delivery_id, error=f"{type(exc).__name__}: {exc}")
            return "failed"
        if self.request.is_eager:
            # No broker to hold a delayed retry: the claim is released, and the next run of the beat task
            # or of `send_freeze_reminders` within the grace period sends it.
            return "deferred"
        base = settings.SIGTRACKER_REMINDER_RETRY_BACKOFF_SECONDS
        countdown = min(DELIVERY_BACKOFF_MAX, base * 2**self.request.retries) * random.uniform(1, 1.25)
        raise self.retry(exc=exc, countdown=countdown) from exc
