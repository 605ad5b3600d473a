"""The reminders' Prometheus metrics (`sigtracker_reminder*`), one call per event from the code that does the work.

Counted where it happens (in the worker that sends; core/metrics.py says how a pod's processes add up): reminders
planned, sent, failed and skipped by channel (email, slack) and freeze (the milestone's kind); minutes from a
reminder's due time to its send.

Read from the database at scrape time (`database_families`, listed in SIGTRACKER_METRICS_COLLECTORS, so exposed by
the web pods): reminders overdue (due, past the grace period, never sent: a dead reminders worker or a stuck
queue).
"""

import datetime
from collections import Counter as Tally
from collections.abc import Iterable

from django.conf import settings
from django.utils import timezone
from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily

from .choices import DeliveryState

REMINDERS = Counter(
    "sigtracker_reminders_total",
    "Reminder deliveries by event (planned, sent, failed, skipped, retried), channel and freeze (milestone kind)",
    ["event", "channel", "freeze"],
)
REMINDER_DELAY_MINUTES = Histogram(
    "sigtracker_reminder_send_delay_minutes",
    "Minutes between a reminder's due time and its send",
    ["channel"],
    buckets=(1, 5, 15, 30, 60, 120, 360, 1440),
)

# The models are imported where used, as in github_sync.metrics: importing this module touches no app.


def _channel(recipient: str) -> str:
    from .channels import slack_sig_slug

    return "slack" if slack_sig_slug(recipient) is not None else "email"


# --- events ----------------------------------------------------------------------------------------------------


def reminders_planned(rows: list) -> None:
    """Before the planning run inserts `rows`: count those not recorded yet, as planned (to be sent) or skipped
    (merged into another email, nobody to send to). A row another run recorded first is not counted twice."""
    from .models import ReminderDelivery

    if not rows:
        return
    existing = set(
        ReminderDelivery.objects.filter(milestone_id__in={row.milestone_id for row in rows}).values_list(
            "milestone_id", "anchor", "offset_hours", "kind", "recipient"
        )
    )
    for row in rows:
        if (row.milestone_id, row.anchor, row.offset_hours, row.kind, row.recipient) in existing:
            continue
        event = "skipped" if row.state == DeliveryState.SKIPPED else "planned"
        REMINDERS.labels(event, _channel(row.recipient), row.milestone.kind).inc()


def reminder_batch_done(deliveries: dict, result) -> None:
    """After a sender's batch: what came of each delivery it held (a `reminders.BatchResult`)."""
    from .models import ReminderDelivery

    sent_at = dict(ReminderDelivery.objects.filter(pk__in=result.sent).values_list("pk", "sent_at"))
    for event, ids in (
        ("sent", result.sent),
        ("skipped", result.skipped),
        ("failed", list(result.failed)),
        ("retried", list(result.retry)),
    ):
        for pk in ids:
            delivery = deliveries[pk]
            channel = _channel(delivery.recipient)
            REMINDERS.labels(event, channel, delivery.milestone.kind).inc()
            if event == "sent" and sent_at.get(pk):
                late = (sent_at[pk] - delivery.due_at).total_seconds()
                REMINDER_DELAY_MINUTES.labels(channel).observe(max(late, 0) / 60)


def reminder_given_up(delivery_id: int) -> None:
    """A delivery marked failed after its last retry."""
    from .models import ReminderDelivery

    delivery = ReminderDelivery.objects.filter(pk=delivery_id).select_related("milestone").first()
    if delivery is not None:
        REMINDERS.labels("failed", _channel(delivery.recipient), delivery.milestone.kind).inc()


# --- read at scrape time ---------------------------------------------------------------------------------------


def database_families() -> Iterable:
    from .models import ReminderDelivery

    now = timezone.now()
    grace = datetime.timedelta(minutes=settings.SIGTRACKER_REMINDER_GRACE_MINUTES)
    overdue = GaugeMetricFamily(
        "sigtracker_reminders_overdue",
        "Reminder deliveries past their grace period (within the catch-up window) and not sent, by channel",
        labels=["channel"],
    )
    oldest = GaugeMetricFamily(
        "sigtracker_reminder_oldest_overdue_minutes",
        "Minutes since the oldest overdue reminder delivery fell due (0 when none is overdue)",
    )
    counts: Tally = Tally()
    first_due = None
    # Older than the catch-up window, a reminder is never sent any more: the admin lists those, the gauge does not.
    catch_up = datetime.timedelta(hours=settings.SIGTRACKER_REMINDER_CATCH_UP_HOURS)
    for recipient, due_at in ReminderDelivery.objects.filter(
        state=DeliveryState.CLAIMED, due_at__lt=now - grace, due_at__gte=now - catch_up
    ).values_list("recipient", "due_at"):
        counts[_channel(recipient)] += 1
        first_due = min(first_due or due_at, due_at)
    for channel in ("email", "slack"):
        overdue.add_metric([channel], counts[channel])
    oldest.add_metric([], (now - first_due).total_seconds() / 60 if first_due else 0.0)
    yield overdue
    yield oldest
