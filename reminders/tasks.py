"""Celery tasks of the reminders: thin wrappers that parse arguments and call one service.

Both are safe to run twice (deliveries go through their once-per-recipient records), so both are `acks_late`: a
worker that dies mid-task leaves its message to be redelivered rather than lost. Without CELERY_BROKER_URL they run
eagerly in-process. They run on the `reminders` queue (CELERY_TASK_ROUTES), so a reminder never waits behind a
GitHub sync or a stats run, and have soft and hard time limits.

A message lost in the broker loses no reminder: the delivery rows are the record, and the next beat hands out
again every delivery still waiting (released after a failure, or under an expired lease).
"""

import datetime
import logging
import random

from celery import shared_task
from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from .delivery import reminder_deliver_batch, reminder_delivery_give_up
from .leases import reminder_deliveries_claim

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


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def send_due_freeze_reminders(now: str | None = None) -> int:
    """Every 15 minutes (beat): claim the reminders due now and queue their deliveries in batches.

    Deliveries whose sender died (stale lease) or whose batch was lost are queued again here, so a
    killed worker's batch is finished by the next beat.
    """
    instant = _instant(now)
    delivery_ids = reminder_deliveries_claim(now=instant)
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
    result = reminder_deliver_batch(delivery_ids=delivery_ids, as_of=_instant(as_of))
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
            reminder_delivery_give_up(delivery_id=delivery_id, error=f"{type(exc).__name__}: {exc}")
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
