"""Writes of a plan: proposals and decisions. The one write path of `PlanDecision` (append-only: a change of mind
is a new row naming the decision it replaces)."""

from django.db import transaction
from django.utils import timezone

from community.models import Sig
from keps.models import Kep

from .choices import PlanDecisionKind
from .models import NOTE_MAX_LENGTH, PlanCandidate, PlanDecision
from .policy import can_decide_plan, can_propose


class PlanRefused(Exception):
    """A write the policy refuses; the message says what is missing."""


class PlanInvalid(ValueError):
    """A write whose input is wrong (unknown decision, a KEP that is not a candidate)."""


def _note(note: str) -> str:
    note = (note or "").strip()
    if len(note) > NOTE_MAX_LENGTH:
        raise PlanInvalid(f"note: at most {NOTE_MAX_LENGTH} characters ({len(note)} given)")
    if "\x00" in note:
        raise PlanInvalid("note: contains a NUL character")
    return note


@transaction.atomic
def plan_decision_record(
    *, user, release: str, sig: Sig, kep: Kep, decision: str, note: str = "", candidates: set[int] | None = None
) -> PlanDecision:
    """Record `user`'s `decision` on `kep` for `sig`'s plan of `release`, after the previous one (kept).

    `candidates`: the KEP numbers of the plan (`planning.selectors.plan_candidate_numbers`), to refuse a KEP that
    is not one; the caller passes them so the page's and the API's one reading of the plan is used.
    """
    verdict = can_decide_plan(user, sig)
    if not verdict:
        raise PlanRefused(verdict.reason)
    if decision not in PlanDecisionKind.values:
        raise PlanInvalid(f"decision: {decision!r} is not one of {', '.join(PlanDecisionKind.values)}")
    if candidates is not None and kep.number not in candidates:
        raise PlanInvalid(f"kep: KEP-{kep.number} is not a candidate of {sig.slug}'s plan for v{release}")
    note = _note(note)
    # Lock the plan's rows so two leads deciding at once each see the other's row as the one they replace.
    previous = (
        PlanDecision.objects.select_for_update()
        .filter(release=release, sig=sig, kep=kep)
        .order_by("-at", "-pk")
        .values_list("decision", flat=True)
        .first()
    )
    return PlanDecision.objects.create(
        release=release,
        sig=sig,
        kep=kep,
        decision=decision,
        from_decision=previous or "",
        note=note,
        by=user,
        at=timezone.now(),
    )


def plan_candidate_propose(*, user, release: str, sig: Sig, kep: Kep, stage: str, note: str = "") -> PlanCandidate:
    """Propose `kep` at `stage` for `sig`'s plan of `release` (any signed-in person). A second proposal of the same
    KEP is refused: the first proposer and note are kept."""
    verdict = can_propose(user)
    if not verdict:
        raise PlanRefused(verdict.reason)
    note = _note(note)
    if PlanCandidate.objects.filter(release=release, sig=sig, kep=kep).exists():
        raise PlanInvalid(f"kep: KEP-{kep.number} is already proposed for {sig.slug}'s plan of v{release}")
    candidate = PlanCandidate(release=release, sig=sig, kep=kep, stage=stage, note=note, proposed_by=user)
    candidate.full_clean()
    candidate.save()
    return candidate
