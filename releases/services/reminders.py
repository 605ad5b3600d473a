"""Freeze reminder emails, delivered once per recipient; after a crash in one narrow window, at most one duplicate.

What is due at an instant T: for each freeze milestone that sends reminders, each SIG on the release's
board at T reminds at its offsets (`Sig.reminder_offsets`, else `SIGTRACKER_REMINDER_OFFSETS_HOURS`)
before the freeze, and at `SIGTRACKER_REMINDER_EXCEPTION_OFFSETS_HOURS` before the exception window after
it closes. A reminder is due when its instant (anchor minus offset, computed in UTC, so "1 day before" is
24 hours before whatever the clocks in California do) lies within the last `SIGTRACKER_REMINDER_GRACE_MINUTES`,
or earlier (up to `SIGTRACKER_REMINDER_CATCH_UP_HOURS`) if no run sent it and its freeze is still ahead.

Two kinds of email go out for each due reminder: a digest to each SIG mailing list, and a personal note to
each author, assignee or enhancements contact of a KEP not ready for that freeze. Everything is read "as of"
T from the status history, so replaying a past instant sends what would have been sent then.

One email per address per instant: reminders due at the same instant for the same recipient (code and test
freeze fall together) are sent as one, by the delivery of the first (`due_order`); the others' rows are recorded
as skipped with a reason naming it (`merged_reason`), and the sender rebuilds the email from those rows, so a
retry says the same. Each email lists what each of its freezes requires (`rules.REQUIREMENTS`) and groups the
KEPs by what they still need.

Once per recipient, not "exactly once": every (milestone, anchor, offset, kind, recipient) gets one
`ReminderDelivery` row, created before anything is sent (the unique constraint decides between racing beats).
A sender takes a lease on the row (`claimed_at`, a compare-and-swap UPDATE), sends outside any transaction, and
marks it sent. A lease older than `SIGTRACKER_REMINDER_LEASE_SECONDS` belongs to a sender that died: the next
planning run hands the row out again. Exactly-once delivery cannot be had over SMTP: a sender killed
after the SMTP server's "250 OK" for the message but before the commit that marks the row sent (microseconds)
leaves a row that looks unsent, and it is sent again once its lease runs out. So a recipient gets at most one
duplicate, recognisable by its Message-ID (fixed per row), and only after a crash in that window; keep the
window as small as it is (nothing between the send and the commit that marks the row sent).

A delivery the server refuses for good (5xx) is `FAILED` with the server's answer, counted in the run's report,
and handed out again by a later run after a back-off, or by the admin's "Retry now" (`reminder_refusals`): back
to the waiting state by one compare-and-swap, then through the same lease and send, so a refusal is never lost
and, the refused message never having been accepted, never sent twice.

Slack is a second channel of the digest, not a second system: a SIG with a Slack incoming webhook
(`people.SlackWebhook`) gets a digest delivery of its own, a `ReminderDelivery` row with kind digest and the
pseudo-recipient `<sig-slug>@slack.invalid` (`slack_recipient`; `.invalid` is reserved, RFC 2606, so it is never
a real address), so the unique constraint, the leases and the merging above apply unchanged, per channel. Its
content is the digest's context as Slack blocks (`render_digest_slack`); it is posted with slack-sdk
(`people.slack.webhook_post`): a 429 or 5xx still failing after the client's retries releases the lease like a
transient SMTP failure; a revoked webhook (404/410) turns that SIG's channel off and fails only that delivery.
The same window applies: a sender killed after Slack's "ok" but before the commit posts it again, and the copy is
recognisable by the `reminder-<id>` reference in its last line.

An approved exception request's own deadline is an anchor too (`Anchor.EXCEPTION_DEADLINE`): at the
exception offsets before it, the people of its KEP (`_people_of`) get a personal note naming the KEP, the freeze,
the deadline and the thread, unless the KEP is done or out of play by then; no digest. Its delivery row hangs on
the release-wide milestone that closes the request's freeze (`rules.FREEZE_MILESTONE`), so the unique constraint
allows one note per person, freeze and offset: sent at the first such deadline, it lists every approved request
of theirs for that freeze whose deadline is still ahead (`exception_requests_due`). These notes are not merged
with other reminders falling at the same instant.
"""

import datetime
import logging
import smtplib
from collections import defaultdict
from dataclasses import dataclass, field
from urllib.parse import urlparse

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import connection, transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from community.models import Person, Sig
from core.text import one_line
from people.models import SlackWebhook
from people.refusals import reminder_refusal
from people.services import slack_webhook_disable
from people.slack import webhook_post
from people.unsubscribe import unsubscribe_headers, unsubscribe_url
from releases import metrics
from releases.choices import (
    ActionStatus,
    DeliveryState,
    EnhancementStatus,
    ExceptionDecision,
    ReminderKind,
    RetroCategory,
)
from releases.models import EnhancementException, Milestone, ReminderDelivery, RetroItem, TrackedEnhancement
from releases.prr import prr_of, with_prr
from releases.rules import (
    AOE,
    AT_RISK_STATUSES,
    FINAL_STATUSES,
    FREEZE_KINDS,
    FREEZE_MILESTONE,
    MILESTONE_FREEZE,
    OUT_OF_PLAY,
    PACIFIC,
    REQUIREMENTS,
    is_ready_for,
)
from releases.selectors_published import release_enhancements_lead
from releases.services.reminder_refusals import refused_update, reminder_refused_release, reminder_refused_waiting
from releases.services.stats import status_at_expression

logger = logging.getLogger(__name__)

Anchor = ReminderDelivery.Anchor

ROLE_LABELS = {
    "author": "author",
    "assignee": "assignee",
    "contact": "enhancements contact",
    "chair": "SIG chair",
    "tech_lead": "tech lead",
}


#: The domain of the pseudo-recipient of a SIG's Slack digest (RFC 2606 reserves `.invalid`: never a mailbox).
SLACK_DOMAIN = "slack.invalid"


def slack_recipient(slug: str) -> str:
    """The `recipient` of a SIG's Slack digest delivery, e.g. `sig-node@slack.invalid`."""
    return f"{slug}@{SLACK_DOMAIN}"


def slack_sig_slug(recipient: str) -> str | None:
    """The SIG slug of a Slack digest delivery's recipient; None for an email address."""
    local, _, domain = recipient.rpartition("@")
    return local if domain.lower() == SLACK_DOMAIN else None


class SlackDeliveryError(Exception):
    """Slack did not take a post for a reason worth retrying (429 or 5xx after the client's retries, no network)."""


def is_transient(exc: BaseException) -> bool:
    """True for SMTP/network failures worth retrying: connection problems, timeouts and 4xx answers."""
    if isinstance(exc, smtplib.SMTPResponseException):
        return 400 <= exc.smtp_code < 500
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(400 <= code < 500 for code, _ in exc.recipients.values())
    return isinstance(exc, smtplib.SMTPServerDisconnected | smtplib.SMTPConnectError | OSError)


def smtp_answer(exc: BaseException) -> str:
    """The mail server's answer in an exception, as the server said it ("SMTP 550 5.1.1 no such user"),
    else the exception's name and text."""
    if isinstance(exc, smtplib.SMTPResponseException):
        text = exc.smtp_error.decode(errors="replace") if isinstance(exc.smtp_error, bytes) else str(exc.smtp_error)
        return f"SMTP {exc.smtp_code} {text}"
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "; ".join(
            f"SMTP {code} {text.decode(errors='replace') if isinstance(text, bytes) else text} ({address})"
            for address, (code, text) in exc.recipients.items()
        )
    return f"{type(exc).__name__}: {exc}"


# --- what is due ----------------------------------------------------------------------------------------


@dataclass
class DueReminder:
    """One milestone/anchor/offset due at T, and the SIGs that remind at that offset."""

    milestone: Milestone
    anchor: str
    offset_hours: int
    due_at: datetime.datetime
    sig_ids: list[int]
    #: Set when the reminder fell due during an outage and its freeze has passed since: recorded, not sent.
    skip_reason: str = ""

    @property
    def anchor_at(self) -> datetime.datetime:
        if self.anchor == Anchor.EXCEPTION_DEADLINE:
            # An exception request's own deadline: the milestone only says which freeze and release.
            return self.due_at + datetime.timedelta(hours=self.offset_hours)
        return self.milestone.exception_deadline if self.anchor == Anchor.EXCEPTION_CLOSE else self.milestone.at


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


def _offsets(sig: Sig) -> list[int]:
    """The SIG's reminder offsets in hours (its own list, else the setting's). An entry that is not a
    whole number of hours ≥ 0 is left out with a warning, so one bad edit stops no one's reminders."""
    raw = sig.reminder_offsets or settings.SIGTRACKER_REMINDER_OFFSETS_HOURS
    if not isinstance(raw, list):
        logger.warning("SIG %s: reminder_offsets: not a list of hours (%r); using the defaults", sig.slug, raw)
        raw = settings.SIGTRACKER_REMINDER_OFFSETS_HOURS
    offsets = set()
    for hours in raw:
        if isinstance(hours, int) and not isinstance(hours, bool) and hours >= 0:
            offsets.add(hours)
        else:
            logger.warning("SIG %s: reminder_offsets: %r is not a whole number of hours >= 0; ignored", sig.slug, hours)
    return sorted(offsets, reverse=True)


def _exception_offsets() -> list[int]:
    return sorted({int(h) for h in getattr(settings, "SIGTRACKER_REMINDER_EXCEPTION_OFFSETS_HOURS", [24])})


def _grace() -> datetime.timedelta:
    return datetime.timedelta(minutes=getattr(settings, "SIGTRACKER_REMINDER_GRACE_MINUTES", 60))


def _catch_up() -> datetime.timedelta:
    """How far back a run looks for reminders that no run sent (beat or broker down): at least the grace."""
    hours = getattr(settings, "SIGTRACKER_REMINDER_CATCH_UP_HOURS", 24)
    return max(datetime.timedelta(hours=hours), _grace())


def board_at(*, release_id: int, as_of: datetime.datetime, sig_ids=None):
    """Tracked enhancements of a release that were on the board at `as_of`, with `status_then` annotated."""
    # Reminders go to a KEP's people: a KEP-less feature (an early feature sheet's) has none.
    rows = TrackedEnhancement.objects.filter(release_id=release_id, kep__isnull=False)
    if sig_ids is not None:
        rows = rows.filter(sig_id__in=sig_ids)
    # With each row's PRR file approver: the PRR freeze asks for an approved PRR (`rules.is_ready_for`, `prr_of`).
    return with_prr(rows.annotate(status_then=status_at_expression(as_of)).filter(status_then__isnull=False))


def reminders_due(*, now: datetime.datetime) -> list[DueReminder]:
    """Every reminder whose instant falls in (now − catch-up, now], with the SIGs that send it.

    One that fell due within the grace period, or whose freeze is still ahead, is to be sent: after an outage
    of the broker or of beat, the first run catches up (once: the delivery rows say what went out). One whose
    freeze has passed since it fell due is recorded as skipped, with the reason, and not sent.
    """
    sigs = list(Sig.objects.all())
    offsets = {sig.pk: _offsets(sig) for sig in sigs}
    longest = max([0, *settings.SIGTRACKER_REMINDER_OFFSETS_HOURS, *(max(o, default=0) for o in offsets.values())])
    longest = max(longest, *_exception_offsets(), 0)
    earliest, latest = now - _catch_up(), now + datetime.timedelta(hours=longest)
    milestones = (
        Milestone.objects.filter(kind__in=FREEZE_KINDS, sends_reminders=True)
        .filter(Q(at__gt=earliest, at__lte=latest) | Q(exception_deadline__gt=earliest, exception_deadline__lte=latest))
        .select_related("release", "sig")
        .order_by("at", "pk")
    )
    due: list[DueReminder] = []
    for milestone in milestones:
        if milestone.sig_id:
            on_board = {milestone.sig_id}
        else:
            on_board = set(board_at(release_id=milestone.release_id, as_of=now).values_list("sig_id", flat=True))
        anchors = [(Anchor.FREEZE, milestone.at, None)]
        if milestone.exception_deadline:
            anchors.append((Anchor.EXCEPTION_CLOSE, milestone.exception_deadline, _exception_offsets()))
        for anchor, anchor_at, fixed in anchors:
            by_offset: dict[int, list[int]] = defaultdict(list)
            for sig_id in sorted(on_board):
                for hours in fixed if fixed is not None else offsets.get(sig_id, []):
                    by_offset[hours].append(sig_id)
            for hours, sig_ids in sorted(by_offset.items(), reverse=True):
                # Pure UTC arithmetic: a day is 24 hours, whatever daylight saving does to wall clocks.
                at = anchor_at - datetime.timedelta(hours=hours)
                if earliest < at <= now:
                    late = now - at > _grace() and anchor_at <= now
                    reason = ""
                    if late:
                        passed = "the freeze" if anchor == Anchor.FREEZE else "the exception window's close"
                        reason = f"not sent in time: {passed} had passed when a run could send it"
                    due.append(DueReminder(milestone, anchor, hours, at, sig_ids, skip_reason=reason))
    due += _exception_deadlines_due(now=now, earliest=earliest, latest=latest)
    return due


def _exception_deadlines_due(
    *, now: datetime.datetime, earliest: datetime.datetime, latest: datetime.datetime
) -> list[DueReminder]:
    """The per-request anchors: one reminder per (milestone closing the freeze, deadline, exception offset) of the
    approved exception requests whose deadline lies in (earliest, latest], with the SIGs of those requests."""
    requests = EnhancementException.objects.filter(
        decision=ExceptionDecision.APPROVED,
        decided_at__lte=now,
        deadline__gt=earliest,
        deadline__lte=latest,
        freeze__in=list(FREEZE_MILESTONE),
        # A request of no KEP (a kubernetes/kubernetes issue) has no SIG and no people to remind.
        tracked_enhancement__isnull=False,
    ).select_related("tracked_enhancement")
    sigs_at: dict[tuple, set[int]] = defaultdict(set)
    for request in requests:
        row = request.tracked_enhancement
        sigs_at[(row.release_id, FREEZE_MILESTONE[request.freeze], request.deadline)].add(row.sig_id)
    if not sigs_at:
        return []
    milestones = {
        (m.release_id, m.kind): m
        for m in Milestone.objects.filter(
            sig__isnull=True,
            sends_reminders=True,
            release_id__in={key[0] for key in sigs_at},
            kind__in=set(FREEZE_MILESTONE.values()),
        ).select_related("release", "sig")
    }
    due = []
    for (release_id, kind, deadline), sig_ids in sigs_at.items():
        milestone = milestones.get((release_id, kind))
        if milestone is None:
            continue
        for hours in _exception_offsets():
            at = deadline - datetime.timedelta(hours=hours)
            if earliest < at <= now:
                reason = ""
                if now - at > _grace() and deadline <= now:
                    reason = "not sent in time: the exception request's deadline had passed when a run could send it"
                due.append(DueReminder(milestone, Anchor.EXCEPTION_DEADLINE, hours, at, sorted(sig_ids), reason))
    return sorted(due, key=lambda d: (d.due_at, d.milestone.pk, -d.offset_hours))


def exception_requests_due(*, due: DueReminder, as_of: datetime.datetime, exact: bool = False) -> list[tuple]:
    """(request, board row as of `as_of`) for the approved exception requests an `EXCEPTION_DEADLINE` reminder
    is about: the freeze its milestone closes in that release, deadline at its anchor (`exact`, who is reminded)
    or later (what their note lists), KEP on the board and neither done nor out of play. Earliest deadline first."""
    freezes = [freeze for freeze, kind in FREEZE_MILESTONE.items() if kind == due.milestone.kind]
    deadline = Q(deadline=due.anchor_at) if exact else Q(deadline__gte=due.anchor_at)
    requests = list(
        EnhancementException.objects.filter(
            deadline,
            decision=ExceptionDecision.APPROVED,
            decided_at__lte=as_of,
            freeze__in=freezes,
            tracked_enhancement__release_id=due.milestone.release_id,
        ).order_by("deadline", "tracked_enhancement__kep__number", "pk")
    )
    rows = {
        row.pk: row
        for row in board_at(release_id=due.milestone.release_id, as_of=as_of)
        .filter(pk__in={request.tracked_enhancement_id for request in requests})
        .select_related("kep", "sig", "assignee", "enhancements_contact")
        .prefetch_related("kep__authors", "sig__leaderships__person")
    }
    return [
        (request, rows[request.tracked_enhancement_id])
        for request in requests
        if request.tracked_enhancement_id in rows
        and rows[request.tracked_enhancement_id].status_then not in FINAL_STATUSES
    ]


def _ready(row, level, anchor: str) -> bool:
    """Whether a row, in its status then and its PRR status by the rule, already meets the freeze `level` (for the
    exception window: is done)."""
    return is_ready_for(row.status_then, level, exception_window=anchor == Anchor.EXCEPTION_CLOSE, prr=prr_of(row))


def _not_ready(rows, due: DueReminder) -> list:
    level = MILESTONE_FREEZE[due.milestone.kind]
    return [row for row in rows if row.status_then not in OUT_OF_PLAY and not _ready(row, level, due.anchor)]


def _people_of(row) -> list[tuple[Person, str]]:
    people = [(person, "author") for person in row.kep.authors.all()]
    if row.assignee_id:
        people.append((row.assignee, "assignee"))
    if row.enhancements_contact_id:
        people.append((row.enhancements_contact, "contact"))
    # The SIG's chairs and tech leads (sigs.yaml, `import_sigs`) hear about every row of their SIG; callers
    # prefetch `sig__leaderships__person`, and send only to those with an email.
    people += [(leadership.person, leadership.role) for leadership in row.sig.leaderships.all()]
    return people


def due_order(due: DueReminder) -> tuple:
    """The order of reminders falling at one instant: by the instant they count down to, then in the order
    of the release cycle (FREEZE_KINDS), then by milestone. The first is the one whose delivery sends the email."""
    kind = due.milestone.kind
    order = FREEZE_KINDS.index(kind) if kind in FREEZE_KINDS else len(FREEZE_KINDS)
    return (due.anchor_at, order, due.milestone.pk, due.anchor != Anchor.FREEZE)


def describe_due(due: DueReminder) -> str:
    """One line naming a reminder, e.g. "v1.26 Code freeze, in 7 days" (for the dry run and skip reasons)."""
    version, name = due.milestone.release.version, _freeze_name(due.milestone)
    if due.anchor == Anchor.EXCEPTION_CLOSE:
        when = "closes now" if due.offset_hours == 0 else f"closes in {_span(due.offset_hours)}"
        return f"v{version} exception window after {name}, {when}"
    if due.anchor == Anchor.EXCEPTION_DEADLINE:
        when = "now" if due.offset_hours == 0 else f"in {_span(due.offset_hours)}"
        return f"v{version} exception deadline ({name}, {due.anchor_at:%Y-%m-%d %H:%M} UTC), {when}"
    return f"v{version} {name}, " + ("now in effect" if due.offset_hours == 0 else f"in {_span(due.offset_hours)}")


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
        if not item.skip_reason and item.due.anchor != Anchor.EXCEPTION_DEADLINE:
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


def reminder_plan(*, now: datetime.datetime) -> ReminderPlan:
    """Who gets which reminder at `now`: a digest per SIG mailing list, a note per person with KEPs to fix;
    reminders due at the same instant for the same address make one email. Also who cannot be reached."""
    planned: list[PlannedDelivery] = []
    unreachable: dict[int, str] = {}
    no_list: set[tuple[str, datetime.datetime]] = set()
    seen: set[tuple] = set()
    for due in reminders_due(now=now):
        per_request = due.anchor == Anchor.EXCEPTION_DEADLINE
        # An exception request's deadline gets personal notes only, no digest.
        digest_sig_ids = [] if per_request else due.sig_ids
        sigs = Sig.objects.filter(pk__in=digest_sig_ids).order_by("slug")
        lists: dict[str, list[int]] = defaultdict(list)
        on_slack = set(
            SlackWebhook.objects.filter(sig_id__in=digest_sig_ids, enabled=True).values_list("sig_id", flat=True)
        )
        for sig in sigs:
            if sig.mailing_list:
                lists[sig.mailing_list.lower()].append(sig.pk)
            elif not due.skip_reason and sig.pk not in on_slack:
                no_list.add((sig.slug, due.due_at))
        for address, sig_ids in sorted(lists.items()):
            planned.append(
                PlannedDelivery(
                    due,
                    ReminderKind.DIGEST,
                    address,
                    sig_ids=sig_ids,
                    # A one-click unsubscribe of that list's address (people/) is honoured like an opt-out.
                    skip_reason=due.skip_reason or reminder_refusal(kind=ReminderKind.DIGEST, address=address),
                )
            )
        # Each SIG with a Slack webhook switched on also gets the digest there: a delivery of its own per channel.
        for sig in sigs:
            if sig.pk in on_slack:
                planned.append(
                    PlannedDelivery(
                        due,
                        ReminderKind.DIGEST,
                        slack_recipient(sig.slug),
                        sig_ids=[sig.pk],
                        skip_reason=due.skip_reason,
                    )
                )
        rows = (
            board_at(release_id=due.milestone.release_id, as_of=now, sig_ids=due.sig_ids)
            .select_related("kep", "assignee", "enhancements_contact")
            .prefetch_related("kep__authors", "sig__leaderships__person")
        )
        if per_request:
            rows = [row for _request, row in exception_requests_due(due=due, as_of=now, exact=True)]
        else:
            rows = _not_ready(rows, due)
        people: dict[str, dict] = {}
        for row in rows:
            for person, _role in _people_of(row):
                if not person.email:
                    if not due.skip_reason:
                        unreachable[person.pk] = person.github or person.name or f"person {person.pk}"
                    continue
                entry = people.setdefault(person.email.lower(), {"person": person, "keps": set(), "opted_out": True})
                entry["keps"].add(row.kep.number)
                # Two records sharing an address: send unless every one of them opted out.
                entry["opted_out"] = entry["opted_out"] and person.reminders_opt_out
                if not person.reminders_opt_out:
                    entry["person"] = person
        for address, entry in sorted(people.items()):
            if per_request:
                # Two deadlines of one freeze due in one run (catching up): the first one's note lists both.
                key = (due.milestone.pk, due.anchor, due.offset_hours, ReminderKind.PERSONAL, address)
                if key in seen:
                    continue
                seen.add(key)
            planned.append(
                PlannedDelivery(
                    due,
                    ReminderKind.PERSONAL,
                    address,
                    person_id=entry["person"].pk,
                    skip_reason=due.skip_reason
                    or ("opted out of reminder emails" if entry["opted_out"] else "")
                    # Their own settings (people/): unsubscribed, email off, or not one of their chosen offsets.
                    or reminder_refusal(kind=ReminderKind.PERSONAL, address=address, offset_hours=due.offset_hours),
                    keps=sorted(entry["keps"]),
                )
            )
    _merge_same_instant(planned)
    return ReminderPlan(
        deliveries=planned,
        owners_without_address=sorted(unreachable.values(), key=str.lower),
        digests_without_list=sorted(no_list),
    )


def reminder_deliveries_plan(*, now: datetime.datetime) -> list[PlannedDelivery]:
    """The deliveries of `reminder_plan` at `now`."""
    return reminder_plan(now=now).deliveries


# --- claiming -------------------------------------------------------------------------------------------


def _lease() -> datetime.timedelta:
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
        if tuple(key) in keys and (claimed_at is None or claimed_at < real_now - _lease()):
            waiting.append(pk)
    return waiting + [pk for pk in released if pk not in set(waiting)]


def _take_leases(delivery_ids: list[int]) -> tuple[datetime.datetime, set[int]]:
    """Lease to us, in one transaction, those of these deliveries that are waiting (not sent, skipped or
    held under a live lease by another sender). Returns the lease stamp and the ids now ours."""
    stamp = timezone.now()
    free = Q(claimed_at__isnull=True) | Q(claimed_at__lt=stamp - _lease())
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


def _renew_lease(delivery_id: int, stamp: datetime.datetime) -> datetime.datetime | None:
    """Extend our lease on a delivery (compare-and-swap on our stamp); None if it is no longer ours."""
    renewed = timezone.now()
    held = ReminderDelivery.objects.filter(pk=delivery_id, claimed_at=stamp, state=DeliveryState.CLAIMED)
    return renewed if held.update(claimed_at=renewed) else None


# --- content --------------------------------------------------------------------------------------------


def _when(at: datetime.datetime, milestone: Milestone) -> dict:
    """The instant as the release team quotes it: UTC, US Pacific (PST or PDT as the date has it), AoE."""
    utc = at.astimezone(datetime.UTC)
    pacific = at.astimezone(PACIFIC)
    offset = pacific.utcoffset().total_seconds() / 3600
    when = {
        "utc": utc.strftime("%a %Y-%m-%d %H:%M UTC"),
        "pacific": pacific.strftime("%a %Y-%m-%d %H:%M ") + f"{pacific.tzname()} (UTC{offset:+.0f})".replace("-", "−"),
        "aoe": "",
        "all_day": milestone.all_day,
    }
    if (milestone.quoted_timezone or "").upper() == "AOE":
        when["aoe"] = at.astimezone(AOE).strftime("%a %Y-%m-%d %H:%M AoE")
    return when


def _span(hours: int) -> str:
    if hours % 24 == 0:
        days = hours // 24
        return "1 day" if days == 1 else f"{days} days"
    return "1 hour" if hours == 1 else f"{hours} hours"


def _freeze_name(milestone: Milestone) -> str:
    """The milestone's name as the emails quote it: its label, else its kind ("Feature blog freeze")."""
    return one_line(milestone.label or milestone.get_kind_display())


def _role_order(role: str) -> int:
    return list(ROLE_LABELS).index(role) if role in ROLE_LABELS else len(ROLE_LABELS)


def _and_or(names: list[str]) -> str:
    """ "an author", "an author or tech lead", "an author, assignee or SIG chair": the roles a note is sent for."""
    if not names:
        return ""
    words = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return ("an " if words[0] in "aeiou" else "a ") + words


def _and(names: list[str]) -> str:
    """ "A", "A and b", "A, b and c": names after the first lose a capital that only starts a sentence."""
    names = [names[0], *(n[0].lower() + n[1:] if n[1:2].islower() else n for n in names[1:])]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _headline(dues: list[DueReminder]) -> str:
    """What falls due, in one line: "Code freeze and test freeze for v1.26 are in 7 days"; reminders at the
    same instant that count down differently are joined with "; "."""
    parts: dict[tuple, list[DueReminder]] = {}
    for due in dues:
        parts.setdefault((due.anchor, due.offset_hours, due.milestone.release.version), []).append(due)
    lines = []
    for (anchor, hours, version), group in parts.items():
        names, one = _and([_freeze_name(due.milestone) for due in group]), len(group) == 1
        if anchor == Anchor.EXCEPTION_CLOSE:
            windows, verb = ("Exception window", "closes") if one else ("Exception windows", "close")
            when = f"{verb} now" if hours == 0 else f"{verb} in {_span(hours)}"
            lines.append(f"{windows} after {names} (v{version}) {when}")
        else:
            verb = "is" if one else "are"
            when = f"{verb} now in effect" if hours == 0 else f"{verb} in {_span(hours)}"
            lines.append(f"{names} for v{version} {when}")
    return "; ".join(lines)


def _needs(status: str, due: DueReminder) -> str:
    """What a KEP in `status`, not ready for `due`'s freeze, still needs for it (the requirements themselves
    are listed once per email, under the freeze)."""
    milestone = due.milestone
    name = _freeze_name(milestone)
    if status == EnhancementStatus.EXCEPTION_PENDING:
        return (
            "its exception request awaits the release team's decision; if granted, the remaining work must "
            "merge before the exception window closes"
        )
    if status == EnhancementStatus.EXCEPTION_APPROVED:
        return "its approved exception: the remaining work must merge before the exception window closes"
    if due.anchor == Anchor.FREEZE and due.offset_hours == 0:
        deadline = milestone.exception_deadline
        if deadline:
            return (
                f"missed {name}: request an exception before {deadline.astimezone(datetime.UTC):%Y-%m-%d %H:%M} "
                "UTC, or it is removed from the milestone"
            )
        return f"missed {name}: it is removed from the milestone unless the release team grants an exception"
    return f"everything {name} requires (listed above)"


def _base_url() -> str:
    return settings.SIGTRACKER_BASE_URL.rstrip("/")


def _kep_entry(row) -> dict:
    status = row.status_then
    return {
        "row": row.pk,
        "number": row.kep.number,
        "title": row.kep.title,
        "sig": row.sig.slug,
        "status": EnhancementStatus(status).label,
        "at_risk": status in AT_RISK_STATUSES,
        "out": status in OUT_OF_PLAY,
        "done": status == EnhancementStatus.DONE,
        "needs": [],
        "roles": set(),
        "url": _base_url() + reverse("keps:kep_detail", kwargs={"number": row.kep.number}),
        "stage": row.get_target_stage_display(),
    }


def _sort_key(entry: dict):
    # At risk first, then everything else still in play, then what is done, then what left the release.
    return (0 if entry["at_risk"] else 3 if entry["out"] else 2 if entry["done"] else 1, entry["number"])


def _blocks(entries: list[dict], *, ready_title: str) -> list[dict]:
    """The KEPs grouped by what they still need: one block per distinct need (blocks holding a KEP at risk
    first), then those ready, done, and no longer in the release. A need is said once, above its KEPs."""
    needing: dict[tuple, list[dict]] = {}
    ready, done, out = [], [], []
    for entry in sorted(entries, key=_sort_key):
        if entry["out"]:
            out.append(entry)
        elif entry["needs"]:
            needing.setdefault(tuple(entry["needs"]), []).append(entry)
        else:
            (done if entry["done"] else ready).append(entry)
    blocks = [
        {"title": "Still needs", "needs": list(needs), "keps": keps, "at_risk": any(k["at_risk"] for k in keps)}
        for needs, keps in needing.items()
    ]
    blocks.sort(key=lambda block: not block["at_risk"])  # stable: otherwise in order of their first KEP
    for title, keps in ((ready_title, ready), ("Done", done), ("No longer in this release", out)):
        if keps:
            blocks.append({"title": title, "needs": [], "keps": keps, "at_risk": False})
    for block in blocks:
        for entry in block["keps"]:
            entry["roles"] = ", ".join(ROLE_LABELS[r] for r in sorted(entry["roles"]))
            # "At risk" is said of a KEP not ready for these freezes: one ready for them (at risk only for a later
            # freeze) is not listed as "Ready — AT RISK".
            entry["at_risk"] = entry["at_risk"] and bool(entry["needs"])
    return blocks


def _freeze_context(due: DueReminder) -> dict:
    milestone = due.milestone
    return {
        "milestone": milestone,
        "name": _freeze_name(milestone),
        "version": milestone.release.version,
        "exception_close": due.anchor == Anchor.EXCEPTION_CLOSE,
        "when": _when(due.anchor_at, milestone),
        "freeze_when": _when(milestone.at, milestone),
        "requirements": list(REQUIREMENTS[milestone.kind]),
    }


def _common_context(dues: list[DueReminder]) -> dict:
    releases = list({due.milestone.release_id: due.milestone.release for due in dues}.values())
    return {
        "release": releases[0],
        "versions": _and([f"v{release.version}" for release in releases]),
        "headline": _headline(dues),
        "freezes": [_freeze_context(due) for due in dues],
        "several": len(dues) > 1,
        "release_urls": [(f"v{r.version}", _base_url() + r.get_absolute_url()) for r in releases],
        "base_url": _base_url(),
        # Signed by the cycle's enhancements lead, naming a shadow (the enhancements contacts) to ask, when the
        # release's roster is imported.
        **dict(zip(("signer", "contacts"), release_enhancements_lead(release_id=releases[0].pk), strict=True)),
    }


@dataclass
class Message:
    #: Always one line (`one_line`): a label stored with a CR/LF must not make the header unsendable.
    subject: str
    text: str
    html: str


def load_board(*, due: DueReminder, as_of: datetime.datetime) -> list:
    """The rows of the SIGs sending `due`, as the board stood at `as_of`, with KEPs, SIGs and people
    loaded: one query plus one for authors, shared by every email of a batch."""
    return list(
        board_at(release_id=due.milestone.release_id, as_of=as_of, sig_ids=due.sig_ids)
        .select_related("kep", "sig", "assignee", "enhancements_contact")
        .prefetch_related("kep__authors", "sig__leaderships__person")
        .order_by("kep__number")
    )


def people_index(rows: list) -> dict[str, dict[int, set[str]]]:
    """email (lower case) -> {row id: that person's roles on it}, built once per board."""
    index: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for row in rows:
        for person, role in _people_of(row):
            if person.email:
                index[person.email.lower()][row.pk].add(role)
    return index


def _board(boards: dict | None, due: DueReminder, as_of: datetime.datetime) -> tuple[list, dict]:
    """The board of `due` and its people index, from `boards` (a cache shared by a batch) when given."""
    boards = {} if boards is None else boards
    key = (due.milestone.release_id, tuple(sorted(due.sig_ids)), as_of)
    if key not in boards:
        rows = load_board(due=due, as_of=as_of)
        boards[key] = (rows, people_index(rows))
    return boards[key]


def _as_list(dues) -> list[DueReminder]:
    dues = [dues] if isinstance(dues, DueReminder) else list(dues)
    return sorted(dues, key=due_order)


def digest_context(
    *, dues, recipient: str, as_of: datetime.datetime, sig_ids: list[int] | None = None, boards: dict | None = None
) -> dict | None:
    """What the digest to one mailing list (or one SIG's Slack channel) says for the reminders `dues` (one, or
    several falling at the same instant): each freeze with its time and requirements, the KEPs of the list's SIGs
    grouped by what they still need (at risk first), and the retro action items due in the release that are still
    open. `sig_ids` defaults to the SIGs whose mailing list is `recipient`; None when no SIG of the reminders is
    left on that list."""
    dues = _as_list(dues)
    wanted = set(sig_ids) if sig_ids is not None else None
    sigs_of: dict[int, list[int]] = {}
    for due in dues:
        sigs = Sig.objects.filter(pk__in=due.sig_ids)
        sigs_of[id(due)] = [
            sig.pk
            for sig in sigs
            if (sig.pk in wanted if wanted is not None else sig.mailing_list.lower() == recipient.lower())
        ]
    all_sig_ids = sorted({pk for pks in sigs_of.values() for pk in pks})
    if not all_sig_ids:
        return None
    sigs = list(Sig.objects.filter(pk__in=all_sig_ids).order_by("slug"))
    entries: dict[int, dict] = {}
    for due in dues:
        rows, _people = _board(boards, due, as_of)
        level = MILESTONE_FREEZE[due.milestone.kind]
        for row in rows:
            if row.sig_id not in sigs_of[id(due)]:
                continue
            entry = entries.setdefault(row.pk, _kep_entry(row))
            if row.status_then not in OUT_OF_PLAY and not _ready(row, level, due.anchor):
                need = _needs(row.status_then, due)
                if need not in entry["needs"]:
                    entry["needs"].append(need)
    keps = list(entries.values())
    releases = {due.milestone.release_id for due in dues}
    actions = (
        RetroItem.objects.filter(
            category=RetroCategory.ACTION_ITEM,
            status__in=[ActionStatus.OPEN, ActionStatus.IN_PROGRESS],
            due_release__in=releases,
            retrospective__sig__in=all_sig_ids,
        )
        .select_related("owner", "due_release", "retrospective__release", "retrospective__sig")
        .order_by("retrospective__release__major", "retrospective__release__minor", "order", "pk")
    )
    # Exception requests of these SIGs still waiting for the release team, earliest deadline first.
    pending_exceptions = (
        EnhancementException.objects.filter(
            decision=ExceptionDecision.PENDING,
            tracked_enhancement__release__in=releases,
            tracked_enhancement__sig__in=all_sig_ids,
            tracked_enhancement__kep__isnull=False,
        )
        .select_related("tracked_enhancement__kep", "tracked_enhancement__sig")
        .order_by(F("deadline").asc(nulls_last=True), "requested_at", "pk")
    )
    blocks = _blocks(keps, ready_title="Ready")
    at_risk = sum(1 for k in keps if k["at_risk"])
    not_ready = sum(1 for k in keps if k["needs"])
    context = _common_context(dues)
    context.update(
        pending_exceptions=pending_exceptions,
        sigs=sigs,
        sig_names=", ".join(sig.slug for sig in sigs),
        recipient=recipient,
        blocks=blocks,
        at_risk=at_risk,
        not_ready=not_ready,
        in_play=sum(1 for k in keps if not k["out"]),
        actions=actions,
    )
    subject = "[" + ", ".join(sig.slug for sig in sigs) + "] " + context["headline"]
    if not_ready:
        subject += f": {not_ready} KEP{'s' if not_ready != 1 else ''} not ready"
    context["subject"] = one_line(subject)
    return context


def render_digest(
    *, dues, recipient: str, as_of: datetime.datetime, sig_ids: list[int] | None = None, boards: dict | None = None
) -> Message | None:
    """The digest email (see `digest_context`); None when no SIG of the reminders is left on that list."""
    context = digest_context(dues=dues, recipient=recipient, as_of=as_of, sig_ids=sig_ids, boards=boards)
    if context is None:
        return None
    return Message(
        subject=context["subject"],
        text=render_to_string("releases/email/digest.txt", context),
        html=render_to_string("releases/email/digest.html", context),
    )


# --- the digest in Slack --------------------------------------------------------------------------------

#: Slack's limits on a message's blocks (https://api.slack.com/reference/block-kit/blocks).
SLACK_MAX_BLOCKS = 50
SLACK_SECTION_CHARS = 3000
SLACK_HEADER_CHARS = 150


@dataclass
class SlackMessage:
    #: The notification's fallback text (the email's subject).
    text: str
    blocks: list[dict]


def mrkdwn_escape(text: str) -> str:
    """Slack's escaping of the three control characters in message text: &, < and >."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack_link(url: str, label: str) -> str:
    return f"<{mrkdwn_escape(url)}|{mrkdwn_escape(label).replace('|', '¦')}>"


def _slack_when(when: dict) -> str:
    if when["all_day"]:
        line = f"{when['utc'][:14]} (all day, UTC)"
    else:
        line = f"{when['utc']}  ·  {when['pacific']}"
    if when["aoe"]:
        line += f"  ·  {when['aoe']} (Anywhere on Earth)"
    return mrkdwn_escape(line)


def _sections(title: str, lines: list[str]) -> list[dict]:
    """A title and its lines as mrkdwn sections, split where a section would pass Slack's 3,000 characters."""
    sections, text = [], title
    for line in lines:
        line = line[: SLACK_SECTION_CHARS - 10]
        if len(text) + 1 + len(line) > SLACK_SECTION_CHARS:
            sections.append(text)
            text = line
        else:
            text = f"{text}\n{line}" if text else line
    if text:
        sections.append(text)
    return [{"type": "section", "text": {"type": "mrkdwn", "text": chunk}} for chunk in sections]


def render_digest_slack(
    *, dues, sig_id: int, as_of: datetime.datetime, reference: str, boards: dict | None = None
) -> SlackMessage | None:
    """One SIG's digest as Slack blocks, from the same context as the email (`digest_context`): a header, each
    freeze with its time (UTC, US Pacific) and requirements, the KEPs grouped by what they still need, open retro
    action items, pending exception requests, the release page, and `reference` (the delivery's fixed id, so a
    copy resent after a crash is recognisably the same). None when the SIG is no longer among the reminders'."""
    context = digest_context(dues=dues, recipient="", as_of=as_of, sig_ids=[sig_id], boards=boards)
    if context is None:
        return None
    esc = mrkdwn_escape
    header = one_line(f"[{context['sig_names']}] {context['headline']}")
    if len(header) > SLACK_HEADER_CHARS:
        header = header[: SLACK_HEADER_CHARS - 1] + "…"
    these = "these freezes" if context["several"] else "this freeze"
    blocks: list[dict] = [
        {"type": "header", "text": {"type": "plain_text", "text": header}},
        *_sections(
            "",
            [
                f"{esc(context['sig_names'])} tracks {context['in_play']} KEP{'s' if context['in_play'] != 1 else ''} "
                f"still in {esc(context['versions'])}; *{context['at_risk']} at risk*, {context['not_ready']} not yet "
                f"ready for {these}."
            ],
        ),
    ]
    for freeze in context["freezes"]:
        name = esc(freeze["name"])
        if freeze["exception_close"]:
            title = (
                f"*The exception window after {name} (v{esc(freeze['version'])}) closes*\n{_slack_when(freeze['when'])}"
            )
        else:
            title = f"*{name} (v{esc(freeze['version'])})*\n{_slack_when(freeze['when'])}"
        blocks += _sections(
            f"{title}\nWhat {name} requires of each KEP:", [f"• {esc(line)}" for line in freeze["requirements"]]
        )
    blocks.append({"type": "divider"})
    for block in context["blocks"]:
        if len(block["needs"]) == 1:
            title = f"*{esc(block['title'])}:* {esc(block['needs'][0])}"
        elif block["needs"]:
            title = f"*{esc(block['title'])}:*\n" + "\n".join(f"  ◦ {esc(need)}" for need in block["needs"])
        else:
            title = f"*{esc(block['title'])}*"
        lines = []
        for kep in block["keps"]:
            where = esc(kep["sig"] + (f", {kep['stage']}" if kep["stage"] else ""))
            risk = " — *AT RISK*" if kep["at_risk"] else ""
            lines.append(
                f"• {_slack_link(kep['url'], 'KEP-' + str(kep['number']))} {esc(kep['title'])} [{where}]{risk} · "
                f"{esc(kep['status'])}"
            )
        blocks += _sections(title, lines)
    if not context["blocks"]:
        blocks += _sections(f"No KEPs of {esc(context['sig_names'])} are on the {esc(context['versions'])} board.", [])
    actions = [
        f"• {esc(item.text)} ({'@' + esc(item.owner.github) + ', ' if item.owner else ''}"
        f"{esc(item.get_status_display().lower())}; from the v{esc(item.retrospective.release.version)} retro of "
        f"{esc(item.retrospective.sig.slug)})"
        for item in context["actions"]
    ]
    if actions:
        blocks += _sections(f"*Open retro action items due in {esc(context['versions'])}:*", actions)
    requests = []
    for request in context["pending_exceptions"]:
        kep = request.tracked_enhancement.kep
        line = (
            f"• KEP-{kep.number} {esc(kep.title)} [{esc(request.tracked_enhancement.sig.slug)}]: "
            f"{esc(request.get_freeze_display())}, requested {request.requested_at:%Y-%m-%d %H:%M} UTC"
        )
        if request.deadline:
            line += f", deadline {request.deadline:%Y-%m-%d %H:%M} UTC"
        if request.thread_url:
            line += f" ({_slack_link(request.thread_url, 'thread')})"
        requests.append(line)
    if requests:
        blocks += _sections("*Exception requests waiting for the release team's decision:*", requests)
    footer = {
        "type": "context",
        "elements": [
            {
                "type": "mrkdwn",
                "text": " · ".join(
                    [
                        *(
                            _slack_link(url, f"Release schedule and board ({version})")
                            for version, url in context["release_urls"]
                        ),
                        f"sigtracker {esc(reference)}",
                    ]
                ),
            }
        ],
    }
    if len(blocks) > SLACK_MAX_BLOCKS - 1:
        dropped = len(blocks) - (SLACK_MAX_BLOCKS - 2)
        blocks = blocks[: SLACK_MAX_BLOCKS - 2]
        blocks += _sections(f"_…and {dropped} more sections: see the release page._", [])
    blocks.append(footer)
    return SlackMessage(text=context["subject"], blocks=blocks)


def render_personal(
    *,
    dues,
    person: Person | None,
    recipient: str,
    as_of: datetime.datetime,
    boards: dict | None = None,
) -> Message | None:
    """The personal note for the reminders `dues` (one, or several at the same instant): just this person's
    KEPs that are not ready, grouped by what they still need. None when nothing is left to remind them of
    (the KEPs got ready since the reminder was planned)."""
    dues = _as_list(dues)
    entries: dict[int, dict] = {}
    for due in dues:
        rows, people = _board(boards, due, as_of)
        mine = people.get(recipient.lower(), {})
        for row in _not_ready(rows, due):
            if row.pk in mine:
                entry = entries.setdefault(row.pk, _kep_entry(row))
                entry["roles"] |= mine[row.pk]
                need = _needs(row.status_then, due)
                if need not in entry["needs"]:
                    entry["needs"].append(need)
    if not entries:
        return None
    context = _common_context(dues)
    n = len(entries)
    # Why this person gets the note, from the roles that put each KEP in it (the body says the same per KEP).
    roles = sorted(set().union(*(entry["roles"] for entry in entries.values())), key=_role_order)
    context.update(
        person=person,
        recipient=recipient,
        blocks=_blocks(list(entries.values()), ready_title=""),
        n=n,
        reason=_and_or([ROLE_LABELS[role] for role in roles]),
        preferences_url=_base_url() + reverse("people:preferences"),
        unsubscribe_url=unsubscribe_url(address=recipient, kind=ReminderKind.PERSONAL),
    )
    subject = f"{context['headline']}: {n} of your KEPs"
    if any(due.anchor == Anchor.FREEZE for due in dues):
        subject += f" {'needs' if n == 1 else 'need'} attention"
    return Message(
        subject=one_line(subject),
        text=render_to_string("releases/email/personal.txt", context),
        html=render_to_string("releases/email/personal.html", context),
    )


def render_exception_deadline(
    *, dues, person: Person | None, recipient: str, as_of: datetime.datetime
) -> Message | None:
    """The personal note before an exception request's deadline (`Anchor.EXCEPTION_DEADLINE`): this person's
    approved requests for that freeze whose deadline is still ahead, each with its KEP, freeze, deadline (UTC and
    US Pacific, as `_when` quotes it) and thread. None when none is left (done, out of play, or past)."""
    dues = _as_list(dues)
    requests, seen, all_roles = [], set(), set()
    for due in dues:
        for request, row in exception_requests_due(due=due, as_of=as_of):
            roles = {role for who, role in _people_of(row) if who.email and who.email.lower() == recipient.lower()}
            if not roles or request.pk in seen or request.deadline < as_of:
                continue
            seen.add(request.pk)
            all_roles |= roles
            entry = _kep_entry(row)
            entry["roles"] = ", ".join(sorted(ROLE_LABELS.get(role, role) for role in roles))
            requests.append(
                {
                    "kep": entry,
                    "freeze": request.get_freeze_display(),
                    "version": due.milestone.release.version,
                    "when": _when(request.deadline, due.milestone),
                    "thread_url": request.thread_url,
                }
            )
    if not requests:
        return None
    first = requests[0]
    keps = _and([f"KEP-{item['kep']['number']} {item['kep']['title']}" for item in requests])
    hours = dues[0].offset_hours
    when = "now" if hours == 0 else f"in {_span(hours)}"
    if len(requests) == 1:
        headline = f"The exception deadline of {keps} (v{first['version']}, {first['freeze']}) is {when}"
    else:
        headline = f"Exception deadlines of {keps} (v{first['version']}, {first['freeze']}): the first is {when}"
    context = {
        "person": person,
        "recipient": recipient,
        "headline": one_line(headline),
        "requests": requests,
        "n": len(requests),
        # The true reason, from the roles that put these KEPs in the note, and where the person changes it.
        "reason": _and_or([ROLE_LABELS.get(role, role) for role in sorted(all_roles, key=_role_order)]),
        "preferences_url": _base_url() + reverse("people:preferences"),
        "unsubscribe_url": unsubscribe_url(address=recipient, kind=ReminderKind.PERSONAL),
        "release_urls": [
            (f"v{r.version}", _base_url() + r.get_absolute_url())
            for r in {due.milestone.release_id: due.milestone.release for due in dues}.values()
        ],
        "base_url": _base_url(),
    }
    return Message(
        subject=one_line(f"[{', '.join(sorted({item['kep']['sig'] for item in requests}))}] {context['headline']}"),
        text=render_to_string("releases/email/exception_deadline.txt", context),
        html=render_to_string("releases/email/exception_deadline.html", context),
    )


def _due_for(delivery: ReminderDelivery) -> DueReminder:
    """Rebuild the due reminder of a delivery row: the SIGs of its release that send at its offset.

    SIGs are taken from every row of the release (the board as of the instant filters rows later)."""
    milestone = delivery.milestone
    if delivery.anchor == Anchor.EXCEPTION_DEADLINE:
        # Its note reads the exception requests (`exception_requests_due`), not SIGs.
        return DueReminder(milestone, delivery.anchor, delivery.offset_hours, delivery.due_at, [])
    if milestone.sig_id:
        sig_ids = [milestone.sig_id]
    else:
        sig_ids = list(
            TrackedEnhancement.objects.filter(release_id=milestone.release_id)
            .values_list("sig_id", flat=True)
            .distinct()
            .order_by()
        )
    sigs = Sig.objects.filter(pk__in=sig_ids).order_by("pk")
    if delivery.anchor == Anchor.FREEZE:
        sig_ids = [sig.pk for sig in sigs if delivery.offset_hours in _offsets(sig)]
    return DueReminder(milestone, delivery.anchor, delivery.offset_hours, delivery.due_at, sorted(sig_ids))


def _merged_siblings(deliveries: list[ReminderDelivery]) -> dict[int, list[ReminderDelivery]]:
    """delivery id -> the deliveries recorded as skipped because its email covers them (`merged_reason`):
    same kind, recipient and instant, pointing at its milestone. One query for a whole batch."""
    found: dict[int, list[ReminderDelivery]] = defaultdict(list)
    if not deliveries:
        return found
    # A note before an exception request's deadline covers no other reminder (`_merge_same_instant`).
    by_key = {
        (d.kind, d.recipient, d.due_at, d.milestone_id): d for d in deliveries if d.anchor != Anchor.EXCEPTION_DEADLINE
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
        siblings = _merged_siblings([delivery]).get(delivery.pk, [])
    return sorted([_due_for(delivery), *(_due_for(sibling) for sibling in siblings)], key=due_order)


def reminder_message(
    *,
    delivery: ReminderDelivery,
    as_of: datetime.datetime,
    dues: list[DueReminder] | None = None,
    boards: dict | None = None,
) -> EmailMultiAlternatives | None:
    """The email for one delivery row, as of `as_of` (plain text with an HTML alternative), covering every
    reminder merged into it; None when there is nothing left to say (no SIG on that list any more, or the
    person's KEPs are all ready)."""
    dues = dues or reminder_dues(delivery=delivery)
    if delivery.anchor == Anchor.EXCEPTION_DEADLINE:
        message = render_exception_deadline(
            dues=dues, person=delivery.person, recipient=delivery.recipient, as_of=as_of
        )
    elif delivery.kind == ReminderKind.DIGEST:
        message = render_digest(dues=dues, recipient=delivery.recipient, as_of=as_of, boards=boards)
    else:
        message = render_personal(
            dues=dues, person=delivery.person, recipient=delivery.recipient, as_of=as_of, boards=boards
        )
    if message is None:
        return None
    email = EmailMultiAlternatives(
        subject=message.subject,
        body=message.text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[delivery.recipient],
        headers={
            # Fixed per delivery row: a copy resent after a crash is recognisably the same message.
            "Message-ID": f"<reminder-{delivery.pk}@{urlparse(_base_url()).hostname or 'sigtracker'}>",
            "Auto-Submitted": "auto-generated",
            "X-Sigtracker-Reminder": (
                f"{delivery.milestone_id}/{delivery.anchor}/{delivery.offset_hours}/{delivery.kind}"
            ),
            # One-click unsubscribe (RFC 8058) for this recipient from this kind of reminder (people/unsubscribe.py).
            **unsubscribe_headers(address=delivery.recipient, kind=delivery.kind),
        },
    )
    email.attach_alternative(message.html, "text/html")
    return email


# --- sending --------------------------------------------------------------------------------------------


@dataclass
class BatchResult:
    """What one batch of deliveries came to; `retry` holds the ids released after a transient failure."""

    sent: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    elsewhere: list[int] = field(default_factory=list)
    failed: dict[int, str] = field(default_factory=dict)
    retry: dict[int, BaseException] = field(default_factory=dict)


def _opted_out(address: str) -> bool:
    """Whether every person record with this address has opted out (as when planning)."""
    choices = set(Person.objects.filter(email__iexact=address).values_list("reminders_opt_out", flat=True))
    return choices == {True}


def reminder_deliver_batch(*, delivery_ids: list[int], as_of: datetime.datetime, mail_connection=None) -> BatchResult:
    """Send each of these deliveries unless someone else has: lease the waiting ones to us (one short
    transaction), then per delivery send outside any transaction and mark it sent. The board is read once
    per reminder and one SMTP connection serves the whole batch. A transient SMTP failure releases that
    delivery's lease (for a retry) and the batch goes on with a fresh connection; a lasting one marks the
    delivery failed. If the sender dies, its leased deliveries wait for the lease to run out and are then
    handed out again by the next planning run."""
    if connection.in_atomic_block:
        # Sending inside a transaction would let a rollback forget an email that has gone out.
        raise RuntimeError("reminder deliveries must not be sent inside a transaction")
    result = BatchResult()
    deliveries = {
        d.pk: d
        for d in ReminderDelivery.objects.filter(pk__in=delivery_ids).select_related(
            "milestone__release", "milestone__sig", "person"
        )
    }
    boards: dict = {}
    dues: dict[tuple, DueReminder] = {}
    stamp, leased = _take_leases([pk for pk in delivery_ids if pk in deliveries])
    merged = _merged_siblings([deliveries[pk] for pk in delivery_ids if pk in leased])
    result.elsewhere = [pk for pk in delivery_ids if pk not in leased]
    own_connection = mail_connection is None
    mail_connection = mail_connection or get_connection()
    try:
        for delivery_id in delivery_ids:
            if delivery_id not in leased:
                continue
            delivery = deliveries[delivery_id]
            # A slow batch must not outlive its lease: renew it at half-life, before sending.
            held = stamp
            if timezone.now() - stamp > _lease() / 2:
                held = _renew_lease(delivery_id, stamp)
                if held is None:
                    result.elsewhere.append(delivery_id)
                    continue
            mine = ReminderDelivery.objects.filter(pk=delivery_id, claimed_at=held, state=DeliveryState.CLAIMED)
            if delivery.kind == ReminderKind.PERSONAL and _opted_out(delivery.recipient):
                # They opted out after the reminder was planned: their choice now is what counts.
                mine.update(state=DeliveryState.SKIPPED, error="opted out of reminder emails")
                result.skipped.append(delivery_id)
                continue
            refusal = reminder_refusal(
                kind=delivery.kind, address=delivery.recipient, offset_hours=delivery.offset_hours
            )
            if refusal:
                # Unsubscribed with one click, or changed their preferences, after the reminder was planned.
                mine.update(state=DeliveryState.SKIPPED, error=refusal)
                result.skipped.append(delivery_id)
                continue
            covered = []
            for row in (delivery, *merged.get(delivery_id, [])):
                key = (row.milestone_id, row.anchor, row.offset_hours, row.due_at)
                if key not in dues:
                    dues[key] = _due_for(row)
                covered.append(dues[key])
            if slack_sig_slug(delivery.recipient) is not None:
                _deliver_slack(
                    delivery=delivery,
                    mine=mine,
                    dues=sorted(covered, key=due_order),
                    as_of=as_of,
                    boards=boards,
                    result=result,
                )
                continue
            email = reminder_message(delivery=delivery, as_of=as_of, dues=sorted(covered, key=due_order), boards=boards)
            if email is None:
                mine.update(state=DeliveryState.SKIPPED, error="nothing left to remind about when it was sent")
                result.skipped.append(delivery_id)
                continue
            try:
                # Opens the connection for the first message and after a failure; a no-op while open.
                mail_connection.open()
                email.connection = mail_connection
                email.send()
            except Exception as exc:  # noqa: BLE001 - sorted into transient and lasting below
                error = smtp_answer(exc)[:2000]
                # The connection may be half-way through a conversation: start the next message afresh.
                mail_connection.close()
                if is_transient(exc):
                    mine.update(claimed_at=None, error=error)
                    result.retry[delivery_id] = exc
                else:
                    # Refused for good (5xx): kept with the server's answer and tried again after a back-off.
                    refused_update(mine, error=error)
                    result.failed[delivery_id] = error
                continue
            mine.update(
                state=DeliveryState.SENT, sent_at=timezone.now(), message_id=email.extra_headers["Message-ID"], error=""
            )
            result.sent.append(delivery_id)
    finally:
        if own_connection:
            mail_connection.close()
    metrics.reminder_batch_done(deliveries, result)
    return result


def _deliver_slack(*, delivery, mine, dues, as_of, boards, result: BatchResult) -> None:
    """Post one SIG's Slack digest (a leased delivery `mine`) and record what came of it. A webhook Slack says
    is gone turns that SIG's channel off (the admin warns) and fails this delivery only; the batch goes on."""
    slug = slack_sig_slug(delivery.recipient)
    webhook = SlackWebhook.objects.filter(sig__slug=slug).select_related("sig").first()
    if webhook is None or not webhook.enabled:
        reason = (
            f"the Slack channel of {slug} is off: {webhook.disabled_reason}"
            if webhook
            else (f"{slug} has no Slack webhook any more")
        )
        mine.update(state=DeliveryState.SKIPPED, error=reason[:2000])
        result.skipped.append(delivery.pk)
        return
    message = render_digest_slack(
        dues=dues, sig_id=webhook.sig_id, as_of=as_of, boards=boards, reference=f"reminder-{delivery.pk}"
    )
    if message is None:
        mine.update(state=DeliveryState.SKIPPED, error="nothing left to remind about when it was sent")
        result.skipped.append(delivery.pk)
        return
    try:
        url = webhook.url
    except ValueError as exc:
        refused_update(mine, error=str(exc), retry=False)
        result.failed[delivery.pk] = str(exc)
        return
    outcome = webhook_post(url=url, text=message.text, blocks=message.blocks)
    if outcome.state == "sent":
        mine.update(state=DeliveryState.SENT, sent_at=timezone.now(), message_id=f"reminder-{delivery.pk}", error="")
        result.sent.append(delivery.pk)
    elif outcome.state == "transient":
        mine.update(claimed_at=None, error=f"Slack: {outcome.detail}"[:2000])
        result.retry[delivery.pk] = SlackDeliveryError(outcome.detail)
    elif outcome.state == "revoked":
        reason = f"Slack answered {outcome.detail} on {timezone.now():%Y-%m-%d %H:%M} UTC"
        slack_webhook_disable(webhook_id=webhook.pk, reason=reason)
        logger.warning("Slack webhook of %s revoked (%s): channel turned off", slug, outcome.detail)
        error = f"Slack webhook revoked, channel of {slug} turned off: {outcome.detail}"[:2000]
        refused_update(mine, error=error, retry=False)
        result.failed[delivery.pk] = error
    else:
        error = f"Slack refused the post: {outcome.detail}"[:2000]
        refused_update(mine, error=error)
        result.failed[delivery.pk] = error


def reminder_delivery_give_up(*, delivery_id: int, error: str) -> None:
    """Mark a delivery failed after its last retry: kept for the admin to see and resend, and tried again by a
    later run after the refusals' back-off."""
    if refused_update(ReminderDelivery.objects.filter(pk=delivery_id, state=DeliveryState.CLAIMED), error=error):
        metrics.reminder_given_up(delivery_id)


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
