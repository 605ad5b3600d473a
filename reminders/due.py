"""Which reminders fall due at an instant, for which SIGs, and whom a board row's reminders concern.

Everything is read "as of" the instant from the status history (`board_at`), so replaying a past instant finds
what was due then. Offsets are pure UTC arithmetic: "1 day before" is 24 hours before, whatever daylight saving
does to wall clocks.
"""

import datetime
import logging
from collections import defaultdict
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q
from django.db.models.functions import Coalesce

from community.models import Person, Sig
from planning.selectors_reminders import committed_sig_ids
from releases.choices import ExceptionDecision, MilestoneKind
from releases.models import EnhancementException, Milestone, Release, TrackedEnhancement
from releases.prr import prr_of, with_prr
from releases.rules import FINAL_STATUSES, FREEZE_KINDS, FREEZE_MILESTONE, MILESTONE_FREEZE, OUT_OF_PLAY, is_ready_for
from releases.services.stats import status_at_expression
from retros.selectors import retro_input_times, retro_sig_ids

from .models import ReminderDelivery

logger = logging.getLogger(__name__)

Anchor = ReminderDelivery.Anchor
#: "Retro input is open": digests only (list and Slack), never merged with a freeze's.
RETRO_ANCHORS = (Anchor.RETRO_MIDPOINT, Anchor.RETRO_WEEK_BEFORE)


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
    #: A retro-input reminder's "until": the instant after which it is no longer worth sending (`RetroInputTimes`).
    until: datetime.datetime | None = None

    @property
    def anchor_at(self) -> datetime.datetime:
        if self.anchor in RETRO_ANCHORS:
            return self.until or self.due_at
        if self.anchor == Anchor.EXCEPTION_DEADLINE:
            # An exception request's own deadline: the milestone only says which freeze and release.
            return self.due_at + datetime.timedelta(hours=self.offset_hours)
        return self.milestone.exception_deadline if self.anchor == Anchor.EXCEPTION_CLOSE else self.milestone.at


def sig_offsets(sig: Sig) -> list[int]:
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


def exception_offsets() -> list[int]:
    return sorted({int(h) for h in getattr(settings, "SIGTRACKER_REMINDER_EXCEPTION_OFFSETS_HOURS", [24])})


def grace() -> datetime.timedelta:
    return datetime.timedelta(minutes=getattr(settings, "SIGTRACKER_REMINDER_GRACE_MINUTES", 60))


def _catch_up() -> datetime.timedelta:
    """How far back a run looks for reminders that no run sent (beat or broker down): at least the grace."""
    hours = getattr(settings, "SIGTRACKER_REMINDER_CATCH_UP_HOURS", 24)
    return max(datetime.timedelta(hours=hours), grace())


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
    offsets = {sig.pk: sig_offsets(sig) for sig in sigs}
    longest = max([0, *settings.SIGTRACKER_REMINDER_OFFSETS_HOURS, *(max(o, default=0) for o in offsets.values())])
    longest = max(longest, *exception_offsets(), 0)
    earliest, latest = now - _catch_up(), now + datetime.timedelta(hours=longest)
    milestones = (
        Milestone.objects.filter(kind__in=FREEZE_KINDS, sends_reminders=True)
        .filter(Q(at__gt=earliest, at__lte=latest) | Q(exception_deadline__gt=earliest, exception_deadline__lte=latest))
        .select_related("release", "sig")
        .order_by("at", "pk")
    )
    due: list[DueReminder] = []
    committed: dict[int, set[int]] = {}
    for milestone in milestones:
        if milestone.sig_id:
            on_board = {milestone.sig_id}
        else:
            on_board = set(board_at(release_id=milestone.release_id, as_of=now).values_list("sig_id", flat=True))
            # A SIG whose leads committed KEPs that are not on the board yet still hears of the freezes until the PRR
            # freeze: its leads' digest and its KEPs' owners have plan lines to read.
            if milestone.release_id not in committed:
                committed[milestone.release_id] = committed_sig_ids(release=milestone.release, as_of=now)
            on_board |= committed[milestone.release_id]
        anchors = [(Anchor.FREEZE, milestone.at, None)]
        if milestone.exception_deadline:
            anchors.append((Anchor.EXCEPTION_CLOSE, milestone.exception_deadline, exception_offsets()))
        for anchor, anchor_at, fixed in anchors:
            by_offset: dict[int, list[int]] = defaultdict(list)
            for sig_id in sorted(on_board):
                for hours in fixed if fixed is not None else offsets.get(sig_id, []):
                    by_offset[hours].append(sig_id)
            for hours, sig_ids in sorted(by_offset.items(), reverse=True):
                # Pure UTC arithmetic: a day is 24 hours, whatever daylight saving does to wall clocks.
                at = anchor_at - datetime.timedelta(hours=hours)
                if earliest < at <= now:
                    late = now - at > grace() and anchor_at <= now
                    reason = ""
                    if late:
                        passed = "the freeze" if anchor == Anchor.FREEZE else "the exception window's close"
                        reason = f"not sent in time: {passed} had passed when a run could send it"
                    due.append(DueReminder(milestone, anchor, hours, at, sig_ids, skip_reason=reason))
    due += _exception_deadlines_due(now=now, earliest=earliest, latest=latest)
    due += _retro_input_due(now=now, earliest=earliest)
    return due


def retro_input_sig_ids(*, release_id: int) -> list[int]:
    """The SIGs told that a release's retro input is open: those with a row on its board, and those with a retro of
    it (a board someone wrote on, or notes imported)."""
    rows = TrackedEnhancement.objects.filter(release_id=release_id, sig__isnull=False)
    return sorted(
        set(rows.values_list("sig_id", flat=True).distinct().order_by()) | retro_sig_ids(release_id=release_id)
    )


def retro_input_milestone(milestones: list[Milestone]) -> Milestone | None:
    """The milestone a release's retro-input deliveries hang on: its release day, else its retro (release-wide)."""
    for kind in (MilestoneKind.RELEASE, MilestoneKind.RETROSPECTIVE):
        found = sorted((m for m in milestones if m.kind == kind and not m.sig_id), key=lambda m: (m.at, m.pk))
        if found:
            return found[0]
    return None


def _retro_input_due(*, now: datetime.datetime, earliest: datetime.datetime) -> list[DueReminder]:
    """ "Retro input is open" reminders whose instant (the cycle's midpoint, a week before the retro meeting) lies
    in (earliest, now]: one per release, for the SIGs of `retro_input_sig_ids`. As for freezes, one that fell due
    more than the grace period ago is still sent unless what it leads to has come (the midpoint's: the week-before
    reminder; the week-before's: the retro meeting, or the board's close), else recorded as skipped."""
    horizon = (now - datetime.timedelta(days=120)).date()
    releases = list(
        Release.objects.annotate(day=Coalesce("actual_release_date", "planned_release_date")).filter(
            Q(day__isnull=True) | Q(day__gte=horizon)
        )
    )
    if not releases:
        return []
    times = retro_input_times(releases=releases)
    milestones = defaultdict(list)
    for milestone in Milestone.objects.filter(
        release_id__in=[r.pk for r in releases],
        kind__in=[MilestoneKind.RELEASE, MilestoneKind.RETROSPECTIVE],
        sig__isnull=True,
    ).select_related("release", "sig"):
        milestones[milestone.release_id].append(milestone)
    due = []
    for release in releases:
        release_times = times[release.pk]
        for anchor, at in (
            (Anchor.RETRO_MIDPOINT, release_times.midpoint),
            (Anchor.RETRO_WEEK_BEFORE, release_times.week_before),
        ):
            if at is None or not earliest < at <= now:
                continue
            milestone = retro_input_milestone(milestones[release.pk])
            sig_ids = retro_input_sig_ids(release_id=release.pk)
            if milestone is None or not sig_ids:
                continue
            until = release_times.until(midpoint=anchor == Anchor.RETRO_MIDPOINT)
            reason = ""
            if now - at > grace() and until is not None and until <= now:
                passed = "the retro meeting" if release_times.retro else "the board's close"
                if anchor == Anchor.RETRO_MIDPOINT and release_times.week_before:
                    passed = "the next retro-input reminder"
                reason = f"not sent in time: {passed} had come when a run could send it"
            due.append(DueReminder(milestone, anchor, 0, at, sig_ids, skip_reason=reason, until=until))
    return due


def retro_input_due_for(delivery: ReminderDelivery) -> DueReminder:
    """Rebuild a retro-input reminder from its delivery row (the sender's view: same SIGs, same "until")."""
    release = delivery.milestone.release
    times = retro_input_times(releases=[release])[release.pk]
    return DueReminder(
        delivery.milestone,
        delivery.anchor,
        delivery.offset_hours,
        delivery.due_at,
        retro_input_sig_ids(release_id=release.pk),
        until=times.until(midpoint=delivery.anchor == Anchor.RETRO_MIDPOINT),
    )


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
        for hours in exception_offsets():
            at = deadline - datetime.timedelta(hours=hours)
            if earliest < at <= now:
                reason = ""
                if now - at > grace() and deadline <= now:
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


def is_ready(row, level, anchor: str) -> bool:
    """Whether a row, in its status then and its PRR status by the rule, already meets the freeze `level` (for the
    exception window: is done)."""
    return is_ready_for(row.status_then, level, exception_window=anchor == Anchor.EXCEPTION_CLOSE, prr=prr_of(row))


def not_ready(rows, due: DueReminder) -> list:
    level = MILESTONE_FREEZE[due.milestone.kind]
    return [row for row in rows if row.status_then not in OUT_OF_PLAY and not is_ready(row, level, due.anchor)]


def people_of(row) -> list[tuple[Person, str]]:
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


def due_for(delivery: ReminderDelivery) -> DueReminder:
    """Rebuild the due reminder of a delivery row: the SIGs of its release that send at its offset.

    SIGs are taken from every row of the release (the board as of the instant filters rows later)."""
    milestone = delivery.milestone
    if delivery.anchor == Anchor.EXCEPTION_DEADLINE:
        # Its note reads the exception requests (`exception_requests_due`), not SIGs.
        return DueReminder(milestone, delivery.anchor, delivery.offset_hours, delivery.due_at, [])
    if delivery.anchor in RETRO_ANCHORS:
        return retro_input_due_for(delivery)
    if milestone.sig_id:
        sig_ids = [milestone.sig_id]
    else:
        sig_ids = list(
            TrackedEnhancement.objects.filter(release_id=milestone.release_id)
            .values_list("sig_id", flat=True)
            .distinct()
            .order_by()
        )
        # As when it was planned: SIGs with committed KEPs off the board send too, until the PRR freeze.
        committed = committed_sig_ids(release=milestone.release, as_of=delivery.due_at)
        sig_ids = sorted({pk for pk in sig_ids if pk is not None} | committed)
    sigs = Sig.objects.filter(pk__in=sig_ids).order_by("pk")
    if delivery.anchor == Anchor.FREEZE:
        sig_ids = [sig.pk for sig in sigs if delivery.offset_hours in sig_offsets(sig)]
    return DueReminder(milestone, delivery.anchor, delivery.offset_hours, delivery.due_at, sorted(sig_ids))
