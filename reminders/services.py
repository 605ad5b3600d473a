"""One run of the reminders, synchronously (`send_freeze_reminders`), with the same delivery records as the Celery
path: plan, record, hand out refused deliveries whose back-off ran out, send, and report."""

import datetime
from dataclasses import dataclass, field

from core.text import one_line

from .delivery import reminder_deliver_batch
from .leases import reminder_deliveries_claim
from .planning import PlannedDelivery, reminder_plan
from .refusals import reminder_refused_release, reminder_refused_waiting


@dataclass
class SendReport:
    planned: list[PlannedDelivery]
    sent: int = 0
    skipped: int = 0
    #: Reminders not sent on their own because another email to the same recipient at the same instant covers them.
    merged: int = 0
    elsewhere: int = 0
    failed: list[str] = field(default_factory=list)
    #: Deliveries refused by an earlier run and handed out again by this one (their back-off had run out).
    retried: int = 0
    #: Refused deliveries a later run will try again: "delivery <id> to <recipient> at <retry_at>: <answer>".
    refused_waiting: list[str] = field(default_factory=list)
    #: GitHub handles of owners (author, assignee, contact) of KEPs not ready who have no email address.
    owners_without_address: list[str] = field(default_factory=list)
    #: (SIG slug, instant) of each digest that goes nowhere because the SIG has no mailing list.
    digests_without_list: list[tuple[str, datetime.datetime]] = field(default_factory=list)


def freeze_reminders_send(*, now: datetime.datetime, dry_run: bool = False) -> SendReport:
    """Send what is due at `now`, synchronously, with the same delivery records (one per recipient) as the Celery path.

    With `dry_run` nothing is recorded or sent: the report lists what would go out, and who cannot be reached.
    """
    plan = reminder_plan(now=now)
    planned = plan.deliveries
    report = SendReport(
        planned=planned,
        owners_without_address=plan.owners_without_address,
        digests_without_list=plan.digests_without_list,
    )
    report.merged = sum(1 for item in planned if item.skip_reason.startswith("sent in one "))
    if dry_run:
        return report
    retried = reminder_refused_release(now=now)
    ids = reminder_deliveries_claim(now=now, planned=planned)
    ids += [pk for pk in retried if pk not in set(ids)]
    report.retried = len(retried)
    report.merged = sum(1 for item in planned if item.skip_reason.startswith("sent in one "))
    report.skipped = sum(1 for item in planned if item.skip_reason) - report.merged
    result = reminder_deliver_batch(delivery_ids=ids, as_of=now)
    report.sent += len(result.sent)
    report.skipped += len(result.skipped)
    report.elsewhere += len(result.elsewhere)
    report.failed += [f"delivery {pk}: {error}" for pk, error in result.failed.items()]
    report.failed += [f"delivery {pk}: {type(exc).__name__}: {exc}" for pk, exc in result.retry.items()]
    report.refused_waiting = [
        f"delivery {d.pk} to {d.recipient}, next try after {d.retry_at:%Y-%m-%d %H:%M} UTC: {one_line(d.error)}"
        for d in reminder_refused_waiting()
    ]
    return report
