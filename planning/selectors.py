"""Reads of a SIG's plan for a release: its candidates (with where each came from and what is wrong with it), the
leads' current decisions, the load on approvers and reviewers (`selectors_capacity`) and the plan against what
happened (`selectors_outcome`). `plan_for` issues a fixed number of queries whatever the number of candidates.

Where the candidates come from (`CandidateSource`):

- `kep.yaml`: the kep.yaml names the release as `latest-milestone` or as the milestone of its current stage
  (`keps.plans.plan_names_release`). Until the release's enhancements freeze has passed, today's files (the KEP
  rows); after it, the files as they stood at the end of freeze day (US Pacific), from the plan history
  (`import_keps --history`). Without that history a past release's kep.yaml candidates are unknown, and the
  page says so rather than listing today's.
- `slipped`: tracked in the previous release by this SIG and removed from the milestone or deferred
  (`releases.rules.SLIP_STATUSES`), or not done once that release is over.
- `perma-beta`: in beta (or alpha) for three releases or more by the release before this one
  (`releases.selectors_perma_beta`) and not planned: kep.yaml plans no release from this one on. Only while the
  release is still ahead.
- `proposed`: proposed on the page by a signed-in person (`PlanCandidate`).

A withdrawn, rejected or replaced KEP is listed with its flag and never counted as planned.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from django.db.models import CharField, Q, Value
from django.utils import timezone

from community.models import Sig
from core.versions import version_or_none
from keps.choices import KepStatus
from keps.models import Kep, KepHistoryCursor, KepPlanChange, PrrApproval
from keps.plans import planned_target
from keps.selectors_history import plan_slip_count
from releases.choices import Freeze, ReleaseState
from releases.models import Milestone, Release, TrackedEnhancement
from releases.rules import FREEZE_MILESTONE, SLIP_STATUSES, end_of_day_pacific, is_done
from releases.selectors_perma_beta import perma_beta_reference_version, sig_perma_beta_keps

from .choices import CandidateSource, CapacityRole, PlanDecisionKind
from .models import PlanCandidate, PlanDecision
from .planned import NOT_PLANNED_STATUSES, planned_in, plans_at
from .selectors_capacity import capacity_for
from .selectors_outcome import outcome_for

__all__ = [
    "NOT_PLANNED_STATUSES",
    "Candidate",
    "Plan",
    "plan_for",
    "plan_version_known",
    "previous_version",
]

#: kep.yaml's stage -> the stage of its PRR approval file (`keps.choices.PrrStage`); `removed` asks for none.
PRR_STAGE = {"alpha": "alpha", "beta": "beta", "stable": "stable", "deprecated": "deprecation"}
#: A tracked row's target stage in kep.yaml's words.
_TRACKED_STAGE = {"deprecation": "deprecated", "removal": "removed"}
#: Slips (plan history) from which a candidate is flagged `slipped-twice`.
SLIPPED_TWICE = 2

FLAG_NO_PRR_APPROVER = "no-prr-approver"
FLAG_NO_APPROVER = "no-approver"
FLAG_OVER_CAPACITY = "approver-over-capacity"
FLAG_SLIPPED_TWICE = "slipped-twice"
FLAG_NOT_IMPLEMENTABLE = "not-implementable"


@dataclass
class Candidate:
    kep: Kep
    stage: str
    sources: list[str]
    status: str  # kep.yaml's status (at the freeze, for a past release's kep.yaml candidates)
    slips: int = 0  # planned slips from the plan history
    prr_approver: str = ""  # GitHub handle of the PRR approver for `stage` ('' when none)
    prr_file: bool = False  # whether the KEP has a PRR approval file at all
    last_outcome: str = ""  # its status in the previous release's tracking ('' when not tracked then)
    decision: PlanDecision | None = None
    proposal: PlanCandidate | None = None
    flags: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    reviewers: list[str] = field(default_factory=list)
    approvers: list[str] = field(default_factory=list)
    participating: list[str] = field(default_factory=list)

    @property
    def counted(self) -> bool:
        """Whether the candidate counts as planned (a withdrawn, rejected or replaced KEP never does)."""
        return self.status not in NOT_PLANNED_STATUSES

    @property
    def decision_value(self) -> str:
        return self.decision.decision if self.decision else ""


@dataclass
class Plan:
    version: str
    sig: Sig
    release: Release | None  # the schedule's row, when imported
    previous: str  # the previous release's version ('' before 1.0)
    freeze_at: datetime.datetime | None  # end of the enhancements-freeze day (Pacific), when scheduled
    at_freeze: bool  # candidates from kep.yaml as it stood at the freeze (the freeze has passed)
    history_imported: bool
    candidates: list[Candidate]
    decided: bool  # whether any decision was recorded for this plan
    capacity: list = field(default_factory=list)  # selectors_capacity.CapacityRow
    outcome: object = None  # selectors_outcome.Outcome

    @property
    def kep_yaml_known(self) -> bool:
        """Whether the `kep.yaml` source could be read (a past release needs the plan history)."""
        return not self.at_freeze or self.history_imported

    @property
    def committed(self) -> list[Candidate]:
        return [c for c in self.candidates if c.decision_value == PlanDecisionKind.COMMIT and c.counted]

    @property
    def candidate_numbers(self) -> set[int]:
        return {c.kep.number for c in self.candidates}


def previous_version(version: str) -> str:
    parts = version_or_none(version)
    if not parts or parts[1] == 0:
        return ""
    return f"{parts[0]}.{parts[1] - 1}"


def plan_version_known(version: str) -> bool:
    """Whether `version` is a release one may plan: in the schedule, or named by some kep.yaml or proposal."""
    if not version_or_none(version) or f"{version_or_none(version)[0]}.{version_or_none(version)[1]}" != version:
        return False
    named = Q(latest_milestone=version) | Q(alpha_milestone=version) | Q(beta_milestone=version)
    named |= Q(stable_milestone=version) | Q(deprecated_milestone=version)
    return (
        Release.objects.filter(version=version).exists()
        or Kep.objects.filter(named).exists()
        or PlanCandidate.objects.filter(release=version).exists()
    )


def enhancements_freeze_at(release: Release | None) -> datetime.datetime | None:
    """The end of the release's (release-wide) enhancements-freeze day, US Pacific; None when not scheduled."""
    if release is None:
        return None
    freeze = (
        Milestone.objects.filter(release=release, kind=FREEZE_MILESTONE[Freeze.ENHANCEMENTS], sig__isnull=True)
        .order_by("at")
        .first()
    )
    return end_of_day_pacific(freeze.at, all_day=freeze.all_day) if freeze else None


def history_covers(sig: Sig) -> bool:
    """Whether the plan history speaks for `sig`: `import_keps --history` ran and some KEP of the SIG has a plan
    change (a history filtered to other SIGs' files says nothing of this one's plans: unknown, not zero). One
    query."""
    return (
        KepHistoryCursor.objects.exists()
        and KepPlanChange.objects.filter(kep_number__in=Kep.objects.filter(owning_sig=sig).values("number")).exists()
    )


def _today_named(sig: Sig, version: str) -> list[int]:
    """Primary keys of the SIG's KEPs whose kep.yaml today names `version`."""
    named = Q(latest_milestone=version)
    for stage in ("alpha", "beta", "stable", "deprecated"):
        named |= Q(stage=stage, **{f"{stage}_milestone": version})
    return list(Kep.objects.filter(named, owning_sig=sig).values_list("pk", flat=True))


def _slipped(sig: Sig, previous: str) -> dict[int, str]:
    """KEP pk -> target stage of the SIG's KEPs tracked in `previous` that slipped: removed, deferred, or not
    done once that release is over."""
    if not previous:
        return {}
    slipped = {}
    for kep_id, status, stage, state in TrackedEnhancement.objects.filter(
        release__version=previous, sig=sig, kep__isnull=False
    ).values_list("kep_id", "status", "target_stage", "release__state"):
        if status in SLIP_STATUSES or (state == ReleaseState.RELEASED and not is_done(status)):
            slipped[kep_id] = _TRACKED_STAGE.get(stage, stage)
    return slipped


def _perma_betas(sig: Sig, version: str) -> list[int]:
    """Primary keys of the SIG's perma-betas whose kep.yaml plans no release from `version` on."""
    # Counted against the release before the planned one (the current release, when planning the next), not
    # against whatever release is current today: a plan for v1.40 asks what will have been stuck by then.
    reference = previous_version(version) or perma_beta_reference_version()
    perma_betas = sig_perma_beta_keps(sig_id=sig.pk, reference=reference)
    plans = Kep.objects.filter(pk__in=perma_betas).values_list(
        "pk",
        "stage",
        "latest_milestone",
        "alpha_milestone",
        "beta_milestone",
        "stable_milestone",
        "deprecated_milestone",
    )
    return [
        pk
        for pk, stage, latest, alpha, beta, stable, deprecated in plans
        if _not_planned_from(
            stage=stage,
            latest=latest,
            milestones={"alpha": alpha, "beta": beta, "stable": stable, "deprecated": deprecated},
            version=version,
        )
    ]


def _not_planned_from(*, stage: str, latest: str, milestones: dict, version: str) -> bool:
    target = planned_target(stage=stage, latest=latest, milestones=milestones)
    target_parts, version_parts = version_or_none(target), version_or_none(version)
    return not target_parts or target_parts < version_parts


def _candidate_keps(pks: set[int]) -> dict[int, Kep]:
    """The candidates' KEPs with what a row shows (`people`, `prr`, `participating` set on each), in three queries:
    the people as handles straight from the link tables, not as model instances."""
    keps = {
        kep.pk: kep
        for kep in Kep.objects.filter(pk__in=pks)
        .select_related("owning_sig")
        .only(
            "number",
            "title",
            "slug",
            "status",
            "stage",
            "latest_milestone",
            "owning_sig__slug",
            "owning_sig__name",
        )
        .annotate(plan_slips=plan_slip_count())
    }
    for kep in keps.values():
        kep.people = {"authors": [], "reviewers": [], "approvers": []}
        kep.prr = {}
        kep.participating = []
    # Every link a row shows in one UNION (kep id, role, handle or SIG slug), sorted here.
    links = [
        getattr(Kep, role)
        .through.objects.filter(kep_id__in=pks)
        .order_by()
        .values_list("kep_id", Value(role, output_field=CharField()), "person__github")
        for role in ("authors", "reviewers", "approvers")
    ]
    sigs = (
        Kep.participating_sigs.through.objects.filter(kep_id__in=pks)
        .order_by()
        .values_list("kep_id", Value("participating", output_field=CharField()), "sig__slug")
    )
    for kep_id, role, name in sorted(sigs.union(*links, all=True), key=lambda link: (link[2].lower(), link[2])):
        if role == "participating":
            keps[kep_id].participating.append(name)
        else:
            keps[kep_id].people[role].append(name)
    for kep_id, stage, handle in PrrApproval.objects.filter(kep_id__in=pks).values_list(
        "kep_id", "stage", "approver__github"
    ):
        keps[kep_id].prr[stage] = handle
    return keps


def plan_for(*, version: str, sig: Sig, now: datetime.datetime | None = None) -> Plan:
    """`sig`'s plan for release `version`: candidates, decisions, capacity and outcome."""
    now = now or timezone.now()
    release = Release.objects.filter(version=version).first()
    freeze_at = enhancements_freeze_at(release)
    at_freeze = freeze_at is not None and freeze_at <= now
    # Only a plan past its freeze reads the history (its kep.yaml candidates and planned-at-freeze figure).
    history_imported = history_covers(sig) if at_freeze else KepHistoryCursor.objects.exists()
    previous = previous_version(version)

    sources: dict[int, list[str]] = {}
    stages: dict[int, str] = {}
    statuses: dict[int, str] = {}

    def add(pk: int, source: str, stage: str = "") -> None:
        sources.setdefault(pk, [])
        if source not in sources[pk]:
            sources[pk].append(source)
        if stage and pk not in stages:
            stages[pk] = stage

    frozen: dict[int, KepPlanChange] = {}
    if at_freeze:
        if history_imported:
            frozen = planned_in(
                plans_at(numbers=Kep.objects.filter(owning_sig=sig).values("number"), cutoff=freeze_at), version
            )
            pk_of = dict(Kep.objects.filter(number__in=list(frozen)).values_list("number", "pk"))
            for number, change in frozen.items():
                if number in pk_of:
                    add(pk_of[number], CandidateSource.KEP_YAML, change.stage)
                    statuses[pk_of[number]] = change.status
    else:
        for pk in _today_named(sig, version):
            add(pk, CandidateSource.KEP_YAML)
    for pk, stage in _slipped(sig, previous).items():
        add(pk, CandidateSource.SLIPPED, stage)
    if not at_freeze:
        for pk in _perma_betas(sig, version):
            if CandidateSource.KEP_YAML not in sources.get(pk, ()):
                add(pk, CandidateSource.PERMA_BETA)
    proposals = {
        proposal.kep_id: proposal
        for proposal in PlanCandidate.objects.filter(release=version, sig=sig).select_related("proposed_by")
    }
    for kep_id, proposal in proposals.items():
        add(kep_id, CandidateSource.PROPOSED)
        stages[kep_id] = proposal.stage  # what the proposer says wins over what the files imply

    keps = _candidate_keps(set(sources))
    decisions: dict[int, PlanDecision] = {}
    decided = False
    for row in PlanDecision.objects.filter(release=version, sig=sig).select_related("by").order_by("at", "pk"):
        decisions[row.kep_id] = row
        decided = True
    last_outcome = dict(
        TrackedEnhancement.objects.filter(release__version=previous, kep_id__in=list(keps)).values_list(
            "kep_id", "status"
        )
        if previous
        else ()
    )

    candidates = []
    for pk, kep in keps.items():
        stage = stages.get(pk) or kep.stage
        prr = kep.prr
        candidate = Candidate(
            kep=kep,
            stage=stage,
            sources=sources[pk],
            status=statuses.get(pk, kep.status),
            slips=kep.plan_slips,
            prr_approver=prr.get(PRR_STAGE.get(stage, ""), ""),
            prr_file=bool(prr),
            last_outcome=last_outcome.get(pk, ""),
            decision=decisions.get(pk),
            proposal=proposals.get(pk),
            authors=kep.people["authors"],
            reviewers=kep.people["reviewers"],
            approvers=kep.people["approvers"],
            participating=kep.participating,
        )
        candidate.flags = _flags(candidate)
        candidates.append(candidate)
    candidates.sort(key=lambda c: (not c.counted, c.kep.number))
    plan = Plan(
        version=version,
        sig=sig,
        release=release,
        previous=previous,
        freeze_at=freeze_at,
        at_freeze=at_freeze,
        history_imported=history_imported,
        candidates=candidates,
        decided=decided,
    )
    plan.capacity = capacity_for(plan)
    over = {(row.person, row.role) for row in plan.capacity if row.over}
    for candidate in plan.candidates:
        named = [(p, CapacityRole.APPROVER) for p in candidate.approvers]
        if candidate.prr_approver:
            named.append((candidate.prr_approver, CapacityRole.PRR_APPROVER))
        if candidate.counted and any(key in over for key in named):
            candidate.flags.append(FLAG_OVER_CAPACITY)
    plan.outcome = outcome_for(plan, frozen=frozen, now=now)
    return plan


def _flags(candidate: Candidate) -> list[str]:
    """What is wrong with a candidate, but for capacity (added once the load is known)."""
    flags = []
    if candidate.status in NOT_PLANNED_STATUSES:
        flags.append(candidate.status)  # withdrawn, rejected or replaced
    elif candidate.status != KepStatus.IMPLEMENTABLE:
        flags.append(FLAG_NOT_IMPLEMENTABLE)
    if candidate.stage in PRR_STAGE and not candidate.prr_approver:
        flags.append(FLAG_NO_PRR_APPROVER)
    if not candidate.approvers:
        flags.append(FLAG_NO_APPROVER)
    if candidate.slips >= SLIPPED_TWICE:
        flags.append(FLAG_SLIPPED_TWICE)
    return flags


def plan_candidate_numbers(*, version: str, sig: Sig) -> set[int]:
    """The KEP numbers of `sig`'s plan for `version` (a decision may be recorded only on one of them)."""
    return plan_for(version=version, sig=sig).candidate_numbers
