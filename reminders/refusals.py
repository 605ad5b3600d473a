"""Reminders the mail server refused: recorded, shown, and tried again, never lost and never sent twice.

A delivery the server refused for good (a 5xx answer, or a transient failure whose retries ran out) is
`FAILED` with the server's answer in `error`. That state is not the end: each refusal sets `retry_at`, a
back-off of `SIGTRACKER_REMINDER_REFUSED_BACKOFF_MINUTES` doubling per refusal, at most
`SIGTRACKER_REMINDER_REFUSED_RETRIES` times, and only while the delivery's anchor (its freeze, window or
deadline) is still ahead; the next planning run past `retry_at` hands it out again. A curator's "Retry now" in
the admin does the same at once, with no limit but the anchor.

Handing out again is one compare-and-swap UPDATE from `FAILED` (with the `retry_at` read) back to the waiting
state (`CLAIMED` with no lease), so two runs, or a run and the admin, cannot both take it; from there it goes
through the usual lease and send of `delivery.reminder_deliver_batch`, and its once-per-recipient guarantee is
unchanged: a refused message was not accepted, so sending it again is its first delivery, not a second.
"""

import datetime
from dataclasses import dataclass

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from .choices import DeliveryState
from .models import ReminderDelivery

Anchor = ReminderDelivery.Anchor


def refused_retry_at(*, refusals: int, at: datetime.datetime) -> datetime.datetime | None:
    """When a delivery refused `refusals` times (this one included) is tried again; None when no retry is left."""
    if refusals > settings.SIGTRACKER_REMINDER_REFUSED_RETRIES:
        return None
    return at + datetime.timedelta(minutes=settings.SIGTRACKER_REMINDER_REFUSED_BACKOFF_MINUTES * 2 ** (refusals - 1))


def refused_update(rows, *, error: str, retry: bool = True) -> int:
    """Mark `rows` (a queryset of one leased delivery) failed with the server's answer and its next retry.
    `retry=False` for refusals another try cannot cure (a revoked Slack webhook): only the admin retries those."""
    row = rows.values("refusals").first()
    if row is None:
        return 0
    refusals = row["refusals"] + 1
    retry_at = refused_retry_at(refusals=refusals, at=timezone.now()) if retry else None
    return rows.update(
        state=DeliveryState.FAILED, error=error[:2000], claimed_at=None, refusals=F("refusals") + 1, retry_at=retry_at
    )


def anchor_at(delivery: ReminderDelivery) -> datetime.datetime:
    """The instant a delivery reminds of (its freeze, the exception window's close, a request's deadline, or what
    ends a retro-input reminder's use: the next one, the retro meeting or the board's close)."""
    if delivery.anchor in (Anchor.RETRO_MIDPOINT, Anchor.RETRO_WEEK_BEFORE):
        from .due import retro_input_due_for

        return retro_input_due_for(delivery).anchor_at
    if delivery.anchor == Anchor.EXCEPTION_DEADLINE:
        return delivery.due_at + datetime.timedelta(hours=delivery.offset_hours)
    if delivery.anchor == Anchor.EXCEPTION_CLOSE:
        return delivery.milestone.exception_deadline or delivery.milestone.at
    return delivery.milestone.at


def _hand_out(delivery: ReminderDelivery) -> bool:
    """Compare-and-swap one failed delivery back to waiting; False if someone else took or changed it first."""
    return bool(
        ReminderDelivery.objects.filter(
            pk=delivery.pk, state=DeliveryState.FAILED, retry_at=delivery.retry_at, refusals=delivery.refusals
        ).update(state=DeliveryState.CLAIMED, claimed_at=None, retry_at=None)
    )


def reminder_refused_release(*, now: datetime.datetime) -> list[int]:
    """Hand out again every refused delivery whose back-off has run out (real time) and whose anchor is still
    ahead of `now` (the run's instant); return their ids. One whose anchor has passed keeps its answer and
    loses its automatic retry: a reminder of a freeze that is over would mislead."""
    real_now = timezone.now()
    released = []
    due = ReminderDelivery.objects.filter(state=DeliveryState.FAILED, retry_at__lte=real_now).select_related(
        "milestone"
    )
    for delivery in due.order_by("retry_at", "pk"):
        if anchor_at(delivery) <= now:
            ReminderDelivery.objects.filter(pk=delivery.pk, state=DeliveryState.FAILED).update(retry_at=None)
        elif _hand_out(delivery):
            released.append(delivery.pk)
    return released


def reminder_refused_waiting() -> list[ReminderDelivery]:
    """Refused deliveries that a later run will try again, soonest first (for a run's summary)."""
    return list(
        ReminderDelivery.objects.filter(state=DeliveryState.FAILED, retry_at__isnull=False).order_by("retry_at", "pk")
    )


@dataclass
class RetryOutcome:
    """What the admin's "Retry now" did: ids handed out again, and the rest with why not."""

    handed_out: list[int]
    refused: dict[int, str]


def reminder_deliveries_retry(*, delivery_ids: list[int], now: datetime.datetime) -> RetryOutcome:
    """Hand these failed deliveries out again now (the admin's "Retry now"), whatever their back-off: each
    whose anchor is still ahead of `now`. Others are left as they are, with the reason."""
    outcome = RetryOutcome(handed_out=[], refused={})
    for delivery in ReminderDelivery.objects.filter(pk__in=delivery_ids).select_related("milestone").order_by("pk"):
        if delivery.state != DeliveryState.FAILED:
            outcome.refused[delivery.pk] = f"it is {delivery.get_state_display().lower()}, not failed"
        elif anchor_at(delivery) <= now:
            outcome.refused[delivery.pk] = "what it reminds of has passed"
        elif _hand_out(delivery):
            outcome.handed_out.append(delivery.pk)
        else:
            outcome.refused[delivery.pk] = "another run took it first"
    return outcome
