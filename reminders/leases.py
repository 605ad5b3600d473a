"""The delivery rows and their leases: one row per (milestone, anchor, offset, kind, recipient), created before
anything is sent (the unique constraint decides between racing beats); a sender leases a row by compare-and-swap
(`claimed_at`), and a lease older than SIGTRACKER_REMINDER_LEASE_SECONDS belongs to a sender that died."""

import datetime

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from . import metrics
from .choices import DeliveryState
from .models import ReminderDelivery
from .planning import PlannedDelivery, merged_reason, reminder_deliveries_plan
from .refusals import reminder_refused_release

# --- claiming -------------------------------------------------------------------------------------------


def lease_length() -> datetime.timedelta:
    return datetime.timedelta(seconds=getattr(settings, "SIGTRACKER_REMINDER_LEASE_SECONDS", 600))


def _key(item: PlannedDelivery) -> tuple:
    return (item.due.milestone.pk, item.due.anchor, item.due.offset_hours, item.kind, item.recipient)


def _unmerge_behind_sent(planned: list[PlannedDelivery]) -> None:
    """A reminder merged into an email that an earlier run already sent without it (its milestone joined the
    instant since, e.g. a curator added it) goes out on its own: nothing else would ever send it."""
    primaries = {_key(item): item for item in planned if item.merged}
    if not primaries:
        return
    gone = set(
        ReminderDelivery.objects.filter(milestone_id__in={key[0] for key in primaries})
        .exclude(state=DeliveryState.CLAIMED)
        .values_list("milestone_id", "anchor", "offset_hours", "kind", "recipient")
    )
    for key in gone & set(primaries):
        primary = primaries[key]
        for item in planned:
            if item.skip_reason == merged_reason(item.kind, primary.due) and (
                item.kind,
                item.recipient,
                item.due.due_at,
            ) == (primary.kind, primary.recipient, primary.due.due_at):
                item.skip_reason = ""
        primary.merged = []


def reminder_deliveries_claim(*, now: datetime.datetime, planned: list[PlannedDelivery] | None = None) -> list[int]:
    """Create the delivery rows for what is due at `now` (one per recipient, whoever else is planning the
    same) and return the ids of those waiting for a sender: new ones, ones released after a failed attempt,
    and ones whose sender's lease has expired (a killed worker)."""
    planned = reminder_deliveries_plan(now=now) if planned is None else planned
    # Refused deliveries whose back-off has run out wait for a sender again, whatever is due now.
    released = reminder_refused_release(now=now)
    if not planned:
        return released
    _unmerge_behind_sent(planned)
    real_now = timezone.now()
    rows = [
        ReminderDelivery(
            milestone=item.due.milestone,
            anchor=item.due.anchor,
            offset_hours=item.due.offset_hours,
            kind=item.kind,
            recipient=item.recipient,
            person_id=item.person_id,
            due_at=item.due.due_at,
            state=DeliveryState.SKIPPED if item.skip_reason else DeliveryState.CLAIMED,
            error=item.skip_reason,
        )
        for item in planned
    ]
    metrics.reminders_planned(rows)
    with transaction.atomic():
        # The unique constraint decides: a row another beat or worker created first is left alone.
        ReminderDelivery.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    keys = {
        (item.due.milestone.pk, item.due.anchor, item.due.offset_hours, item.kind, item.recipient) for item in planned
    }
    milestones = {key[0] for key in keys}
    waiting = []
    for pk, *key, claimed_at in (
        ReminderDelivery.objects.filter(milestone_id__in=milestones, state=DeliveryState.CLAIMED)
        .values_list("pk", "milestone_id", "anchor", "offset_hours", "kind", "recipient", "claimed_at")
        .order_by("kind", "recipient")
    ):
        if tuple(key) in keys and (claimed_at is None or claimed_at < real_now - lease_length()):
            waiting.append(pk)
    return waiting + [pk for pk in released if pk not in set(waiting)]


def take_leases(delivery_ids: list[int]) -> tuple[datetime.datetime, set[int]]:
    """Lease to us, in one transaction, those of these deliveries that are waiting (not sent, skipped or
    held under a live lease by another sender). Returns the lease stamp and the ids now ours."""
    stamp = timezone.now()
    free = Q(claimed_at__isnull=True) | Q(claimed_at__lt=stamp - lease_length())
    waiting = ReminderDelivery.objects.filter(free, pk__in=delivery_ids, state=DeliveryState.CLAIMED)
    if connection.features.has_select_for_update_skip_locked:
        with transaction.atomic():
            # Rows another sender is leasing at this very moment are skipped, not waited for.
            mine = list(waiting.select_for_update(skip_locked=True).values_list("pk", flat=True))
            ReminderDelivery.objects.filter(pk__in=mine).update(claimed_at=stamp, attempts=F("attempts") + 1)
        return stamp, set(mine)
    # Without row locks (SQLite, whose writers are serialised anyway): a compare-and-swap per row.
    mine = set()
    for delivery_id in delivery_ids:
        if waiting.filter(pk=delivery_id).update(claimed_at=stamp, attempts=F("attempts") + 1):
            mine.add(delivery_id)
    return stamp, mine


def renew_lease(delivery_id: int, stamp: datetime.datetime) -> datetime.datetime | None:
    """Extend our lease on a delivery (compare-and-swap on our stamp); None if it is no longer ours."""
    renewed = timezone.now()
    held = ReminderDelivery.objects.filter(pk=delivery_id, claimed_at=stamp, state=DeliveryState.CLAIMED)
    return renewed if held.update(claimed_at=renewed) else None
