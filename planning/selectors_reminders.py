"""What a SIG's leads' digest says about their plan (read by `reminders.content`):

- until the release's PRR freeze, each KEP the leads committed here that is not on the release's board yet (the
  board takes only issues with the `lead-opted-in` label, so: the label is missing) or has no PRR approver for its
  stage;
- after the enhancements freeze (end of freeze day, US Pacific), each KEP whose kep.yaml planned the release at
  the freeze (from the plan history) that the release team did not track (no row on the release's board).

Everything is read as of the digest's instant, so a replayed reminder says what it said then. A fixed number of
queries per SIG.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from community.models import Sig
from github_sync.rules import OPT_IN_LABEL
from keps.models import Kep
from releases.choices import Freeze
from releases.models import Milestone, Release, TrackedEnhancement
from releases.rules import FREEZE_MILESTONE, end_of_day_pacific

from .choices import PlanDecisionKind
from .models import PlanCandidate, PlanDecision
from .planned import NOT_PLANNED_STATUSES, planned_in, plans_at
from .selectors import PRR_STAGE, history_covers


@dataclass(frozen=True)
class PlanGap:
    number: int
    title: str
    sig: str
    needs: str
    url: str


def _freeze_instant(release: Release, freeze: str) -> datetime.datetime | None:
    milestone = (
        Milestone.objects.filter(release=release, kind=FREEZE_MILESTONE[freeze], sig__isnull=True)
        .order_by("at")
        .first()
    )
    # The end of freeze day, US Pacific: the instant the plan's kep.yaml candidates are read at.
    return end_of_day_pacific(milestone.at, all_day=milestone.all_day) if milestone else None


def plan_gaps(*, release: Release, sig_ids, as_of: datetime.datetime, base_url: str = "") -> list[PlanGap]:
    """The plan lines of the digest for the SIGs `sig_ids` in `release` at `as_of`, by SIG then KEP."""
    gaps: list[PlanGap] = []
    prr_freeze = _freeze_instant(release, Freeze.PRR)
    enhancements_freeze = _freeze_instant(release, Freeze.ENHANCEMENTS)
    on_board = set(
        TrackedEnhancement.objects.filter(release=release, kep__isnull=False, created_at__lte=as_of).values_list(
            "kep_id", flat=True
        )
    )
    for sig in Sig.objects.filter(pk__in=list(sig_ids)).order_by("slug"):
        url = f"{base_url}/releases/{release.version}/plan/{sig.slug}/"
        if prr_freeze is not None and as_of < prr_freeze:
            gaps += _committed_gaps(release=release, sig=sig, as_of=as_of, on_board=on_board, url=url)
        if enhancements_freeze is not None and as_of >= enhancements_freeze and history_covers(sig):
            planned = planned_in(
                plans_at(numbers=Kep.objects.filter(owning_sig=sig).values("number"), cutoff=enhancements_freeze),
                release.version,
            )
            counted = [number for number, change in planned.items() if change.status not in NOT_PLANNED_STATUSES]
            for kep in Kep.objects.filter(number__in=counted).exclude(pk__in=on_board).order_by("number"):
                needs = "planned in kep.yaml at the enhancements freeze, not tracked"
                gaps.append(PlanGap(kep.number, kep.title, sig.slug, needs, url))
    return gaps


def _committed_gaps(*, release: Release, sig: Sig, as_of, on_board: set[int], url: str) -> list[PlanGap]:
    current: dict[int, str] = {}
    for kep_id, decision in (
        PlanDecision.objects.filter(release=release.version, sig=sig, at__lte=as_of)
        .order_by("at", "pk")
        .values_list("kep_id", "decision")
    ):
        current[kep_id] = decision
    committed = [kep_id for kep_id, decision in current.items() if decision == PlanDecisionKind.COMMIT]
    if not committed:
        return []
    proposed = dict(
        PlanCandidate.objects.filter(release=release.version, sig=sig, kep_id__in=committed).values_list(
            "kep_id", "stage"
        )
    )
    gaps = []
    for kep in Kep.objects.filter(pk__in=committed).prefetch_related("prr_approvals").order_by("number"):
        stage = proposed.get(kep.pk) or kep.stage
        needs = []
        if kep.pk not in on_board:
            needs.append(f"the {OPT_IN_LABEL} label (not on the v{release.version} board)")
        prr_stage = PRR_STAGE.get(stage)
        if prr_stage and not any(approval.stage == prr_stage for approval in kep.prr_approvals.all()):
            needs.append(f"a PRR approver for {stage}")
        if needs:
            gaps.append(PlanGap(kep.number, kep.title, sig.slug, "committed; needs " + " and ".join(needs), url))
    return gaps
