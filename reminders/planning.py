"""Who gets which reminder at an instant: a digest per SIG mailing list and Slack channel, a note per person with
KEPs to fix (on the board, or committed in the plan) or open retro action items. Reminders due at the same instant
for the same address make one email: the first (`due_order`) is sent and covers the others, recorded as skipped
with a reason naming it (`merged_reason`), from which a sender rebuilds what its email covers (`reminder_dues`), so
a retry says the same."""

import datetime
from collections import defaultdict
from dataclasses import dataclass, field

from community.models import Sig
from planning.selectors_reminders import plan_gap_owners
from retros.selectors import open_action_items

from .channels import slack_recipient
from .choices import DeliveryState, ReminderKind
from .consent import reminder_refusal
from .due import (
    RETRO_ANCHORS,
    Anchor,
    DueReminder,
    board_at,
    due_for,
    due_order,
    exception_requests_due,
    not_ready,
    people_of,
    reminders_due,
)
from .models import ReminderDelivery, SlackWebhook
from .wording import describe_due


@dataclass
class PlannedDelivery:
    due: DueReminder
    kind: str
    recipient: str
    person_id: int | None = None
    skip_reason: str = ""
    sig_ids: list[int] = field(default_factory=list)
    keps: list[int] = field(default_factory=list)
    #: The other reminders due at the same instant for the same recipient, which this one's email covers.
    merged: list[DueReminder] = field(default_factory=list)


@dataclass
class ReminderPlan:
    """What is due at an instant: the deliveries, and who cannot be reached (for the dry run to say)."""

    deliveries: list[PlannedDelivery]
    #: Authors, assignees and contacts of KEPs not ready who have no email address (GitHub handles).
    owners_without_address: list[str] = field(default_factory=list)
    #: Digests that go nowhere: (SIG slug, due instant) for each SIG on the board with no mailing list.
    digests_without_list: list[tuple[str, datetime.datetime]] = field(default_factory=list)


def merged_reason(kind: str, primary: DueReminder) -> str:
    """The skip reason of a reminder whose email is the one sent for `primary` (same recipient, same instant).

    It ends with the primary's milestone so that the sender can find what else its email covers."""
    what = "digest" if kind == ReminderKind.DIGEST else "note"
    return f"sent in one {what} with {describe_due(primary)} (delivery of milestone {primary.milestone.pk})"


def _merge_same_instant(planned: list[PlannedDelivery]) -> None:
    """One email per recipient per instant: of the reminders due at the same instant for the same address, the
    first (`due_order`) is sent and covers the others, which are recorded as skipped with the reason."""
    groups: dict[tuple, list[PlannedDelivery]] = defaultdict(list)
    for item in planned:
        if (
            not item.skip_reason
            and item.due.anchor != Anchor.EXCEPTION_DEADLINE
            and item.due.anchor not in RETRO_ANCHORS
        ):
            groups[(item.kind, item.recipient, item.due.due_at)].append(item)
    for items in groups.values():
        if len(items) < 2:
            continue
        items.sort(key=lambda item: due_order(item.due))
        primary, *others = items
        for other in others:
            other.skip_reason = merged_reason(other.kind, primary.due)
        primary.merged = [other.due for other in others]
        primary.keps = sorted({number for item in items for number in item.keps})
        primary.sig_ids = sorted({sig_id for item in items for sig_id in item.sig_ids})


def _plan_digests(due: DueReminder, plan: ReminderPlan, no_list: set) -> None:
    """The digests of `due`: one per mailing list of its SIGs, and one per SIG Slack channel switched on. A SIG with
    neither is noted in `no_list` (its digest goes nowhere)."""
    sigs = Sig.objects.filter(pk__in=due.sig_ids).order_by("slug")
    lists: dict[str, list[int]] = defaultdict(list)
    on_slack = set(SlackWebhook.objects.filter(sig_id__in=due.sig_ids, enabled=True).values_list("sig_id", flat=True))
    for sig in sigs:
        if sig.mailing_list:
            lists[sig.mailing_list.lower()].append(sig.pk)
        elif not due.skip_reason and sig.pk not in on_slack:
            no_list.add((sig.slug, due.due_at))
    for address, sig_ids in sorted(lists.items()):
        plan.deliveries.append(
            PlannedDelivery(
                due,
                ReminderKind.DIGEST,
                address,
                sig_ids=sig_ids,
                # A one-click unsubscribe of that list's address is honoured like an opt-out.
                skip_reason=due.skip_reason or reminder_refusal(kind=ReminderKind.DIGEST, address=address),
            )
        )
    # Each SIG with a Slack webhook switched on also gets the digest there: a delivery of its own per channel.
    for sig in sigs:
        if sig.pk in on_slack:
            plan.deliveries.append(
                PlannedDelivery(
                    due, ReminderKind.DIGEST, slack_recipient(sig.slug), sig_ids=[sig.pk], skip_reason=due.skip_reason
                )
            )


def _people_to_remind(due: DueReminder, now: datetime.datetime, unreachable: dict[int, str]) -> dict[str, dict]:
    """address (lower case) -> {"person", "keps", "opted_out"} for the people `due` reminds: those of the KEPs it is
    about (not ready for its freeze, or with an approved exception request at its deadline) and, at a freeze's own
    reminders, the people of its SIGs' committed KEPs with a plan gap (until the PRR freeze) and the owners of their
    open retro action items. KEPs' people without an address go in `unreachable`."""
    if due.anchor == Anchor.EXCEPTION_DEADLINE:
        rows = [row for _request, row in exception_requests_due(due=due, as_of=now, exact=True)]
    else:
        rows = not_ready(
            board_at(release_id=due.milestone.release_id, as_of=now, sig_ids=due.sig_ids)
            .select_related("kep", "assignee", "enhancements_contact")
            .prefetch_related("kep__authors", "sig__leaderships__person"),
            due,
        )
    people: dict[str, dict] = {}

    def add(person, number: int | None, *, report: bool = True) -> None:
        if not person.email:
            if report and not due.skip_reason:
                unreachable[person.pk] = person.github or person.name or f"person {person.pk}"
            return
        entry = people.setdefault(person.email.lower(), {"person": person, "keps": set(), "opted_out": True})
        if number is not None:
            entry["keps"].add(number)
        # Two records sharing an address: send unless every one of them opted out.
        entry["opted_out"] = entry["opted_out"] and person.reminders_opt_out
        if not person.reminders_opt_out:
            entry["person"] = person

    for row in rows:
        for person, _role in people_of(row):
            add(person, row.kep.number)
    if due.anchor == Anchor.FREEZE:
        for owned in plan_gap_owners(release=due.milestone.release, sig_ids=due.sig_ids, as_of=now):
            for person, _role in owned.people:
                add(person, owned.gap.number)
        for item in open_action_items(sig_ids=due.sig_ids, owned=True):
            add(item.owner, None, report=False)
    return people


def _plan_notes(due: DueReminder, plan: ReminderPlan, people: dict[str, dict], seen: set[tuple]) -> None:
    """The personal notes of `due`, one per address in `people`."""
    for address, entry in sorted(people.items()):
        if due.anchor == Anchor.EXCEPTION_DEADLINE:
            # Two deadlines of one freeze due in one run (catching up): the first one's note lists both.
            key = (due.milestone.pk, due.anchor, due.offset_hours, ReminderKind.PERSONAL, address)
            if key in seen:
                continue
            seen.add(key)
        plan.deliveries.append(
            PlannedDelivery(
                due,
                ReminderKind.PERSONAL,
                address,
                person_id=entry["person"].pk,
                skip_reason=due.skip_reason
                or ("opted out of reminder emails" if entry["opted_out"] else "")
                # Their own settings (`consent`): unsubscribed, email off, or not one of their chosen offsets.
                or reminder_refusal(kind=ReminderKind.PERSONAL, address=address, offset_hours=due.offset_hours),
                keps=sorted(entry["keps"]),
            )
        )


def reminder_plan(*, now: datetime.datetime) -> ReminderPlan:
    """Who gets which reminder at `now`: a digest per SIG mailing list, a note per person with KEPs to fix;
    reminders due at the same instant for the same address make one email. Also who cannot be reached."""
    plan = ReminderPlan(deliveries=[])
    unreachable: dict[int, str] = {}
    no_list: set[tuple[str, datetime.datetime]] = set()
    seen: set[tuple] = set()
    for due in reminders_due(now=now):
        if due.anchor in RETRO_ANCHORS:
            # "Retro input is open" goes to the SIGs' lists and channels only.
            _plan_digests(due, plan, no_list)
            continue
        # An exception request's deadline gets personal notes only, no digest.
        if due.anchor != Anchor.EXCEPTION_DEADLINE:
            _plan_digests(due, plan, no_list)
        _plan_notes(due, plan, _people_to_remind(due, now, unreachable), seen)
    _merge_same_instant(plan.deliveries)
    plan.owners_without_address = sorted(unreachable.values(), key=str.lower)
    plan.digests_without_list = sorted(no_list)
    return plan


def reminder_deliveries_plan(*, now: datetime.datetime) -> list[PlannedDelivery]:
    """The deliveries of `reminder_plan` at `now`."""
    return reminder_plan(now=now).deliveries


def merged_siblings(deliveries: list[ReminderDelivery]) -> dict[int, list[ReminderDelivery]]:
    """delivery id -> the deliveries recorded as skipped because its email covers them (`merged_reason`):
    same kind, recipient and instant, pointing at its milestone. One query for a whole batch."""
    found: dict[int, list[ReminderDelivery]] = defaultdict(list)
    if not deliveries:
        return found
    # A note before an exception request's deadline covers no other reminder (`_merge_same_instant`).
    by_key = {
        (d.kind, d.recipient, d.due_at, d.milestone_id): d
        for d in deliveries
        if d.anchor != Anchor.EXCEPTION_DEADLINE and d.anchor not in RETRO_ANCHORS
    }
    siblings = ReminderDelivery.objects.filter(
        state=DeliveryState.SKIPPED, due_at__in={d.due_at for d in deliveries}, error__startswith="sent in one "
    ).select_related("milestone__release", "milestone__sig")
    for sibling in siblings:
        tail = sibling.error.rsplit("(delivery of milestone ", 1)[-1].rstrip(")")
        primary = by_key.get((sibling.kind, sibling.recipient, sibling.due_at, int(tail) if tail.isdigit() else None))
        if primary is not None and primary.pk != sibling.pk:
            found[primary.pk].append(sibling)
    return found


def reminder_dues(*, delivery: ReminderDelivery, siblings: list[ReminderDelivery] | None = None) -> list[DueReminder]:
    """The reminders one delivery's email covers: its own, and those due at the same instant for the same
    recipient that were recorded as sent with it (rebuilt from the delivery rows, so a retry says the same)."""
    if siblings is None:
        siblings = merged_siblings([delivery]).get(delivery.pk, [])
    return sorted([due_for(delivery), *(due_for(sibling) for sibling in siblings)], key=due_order)
