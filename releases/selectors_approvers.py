"""Approver load: who reviews and approves how many KEPs of a release, per role (/keps/approvers/)."""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import (
    Prefetch,
)

from community.models import Person
from keps.choices import PrrStage
from keps.models import Kep, PrrApproval
from releases.choices import TargetStage
from releases.models import (
    Release,
    TrackedEnhancement,
)

# --- /keps/approvers/ -----------------------------------------------------------------------------------


OTHER_TARGET_STAGES = ("deprecation", "removal", "deprecated", "removed", "unknown")


@dataclass
class ApproverLoad:
    person: Person
    role: str  # "approver" or "PRR approver"
    by_stage: dict[str, list[Kep]] = field(default_factory=lambda: defaultdict(list))
    #: The release is over: the approvers are today's kep.yaml and prod-readiness files', whose history is not kept
    #: here, not who held the KEP then.
    todays: bool = False

    @property
    def role_label(self) -> str:
        """The role, saying "today's" for a past release: "PRR approver (today's file)"."""
        if not self.todays:
            return self.role
        return f"{self.role} (today's {'kep.yaml' if self.role == 'approver' else 'file'})"

    @property
    def total(self) -> int:
        return sum(len(keps) for keps in self.by_stage.values())

    def count(self, stage: str) -> int:
        return len(self.by_stage.get(stage, ()))

    def keps_at(self, *stages: str) -> list[Kep]:
        return [kep for stage in stages for kep in self.by_stage.get(stage, ())]

    @property
    def alpha(self) -> list[Kep]:
        return self.keps_at("alpha")

    @property
    def beta(self) -> list[Kep]:
        return self.keps_at("beta")

    @property
    def stable(self) -> list[Kep]:
        return self.keps_at("stable")

    @property
    def other(self) -> list[Kep]:
        """Deprecations, removals, and KEPs whose target stage is not known."""
        return self.keps_at(*OTHER_TARGET_STAGES)


#: Target stage on the board -> PRR stage whose approver holds the KEP for it.
_PRR_STAGE_FOR_TARGET = {
    TargetStage.ALPHA: PrrStage.ALPHA,
    TargetStage.BETA: PrrStage.BETA,
    TargetStage.STABLE: PrrStage.STABLE,
    TargetStage.DEPRECATION: PrrStage.DEPRECATION,
    TargetStage.REMOVAL: PrrStage.DEPRECATION,
}
_PRR_ORDER = [PrrStage.ALPHA, PrrStage.BETA, PrrStage.STABLE, PrrStage.DEPRECATION]


def approver_load(*, release: Release | None, sig=None, release_over: bool = False) -> list[ApproverLoad]:
    """For each KEP approver and PRR approver, the KEPs tracked in `release` they hold, by target stage.

    A PRR approver holds a KEP when their approval is for the stage the KEP targets in this release;
    when the PRR file has no approval for that stage yet, the approver of its latest stage holds it. The files are
    today's: for a release that is over (`release_over`) each load says so (`todays`).
    """
    if release is None:
        return []
    tracked = (
        # Approvers are a KEP's: a KEP-less feature (an early feature sheet's) has none.
        TrackedEnhancement.objects.filter(release=release, kep__isnull=False)
        .select_related("kep")
        .prefetch_related(
            "kep__approvers",
            Prefetch("kep__prr_approvals", queryset=PrrApproval.objects.select_related("approver")),
        )
        .order_by("kep__number")
    )
    if sig is not None:
        tracked = tracked.filter(sig=sig)
    loads: dict[tuple[int, str], ApproverLoad] = {}

    def hold(person: Person, role: str, stage: str, kep: Kep) -> None:
        load = loads.setdefault((person.pk, role), ApproverLoad(person=person, role=role, todays=release_over))
        load.by_stage[stage].append(kep)

    for row in tracked:
        stage = row.target_stage or row.kep.stage or "unknown"
        for person in row.kep.approvers.all():
            hold(person, "approver", stage, row.kep)
        approvals = sorted(row.kep.prr_approvals.all(), key=lambda a: _PRR_ORDER.index(a.stage))
        wanted = _PRR_STAGE_FOR_TARGET.get(row.target_stage)
        chosen = next((a for a in approvals if a.stage == wanted), approvals[-1] if approvals else None)
        if chosen:
            hold(chosen.approver, "PRR approver", stage, row.kep)
    return sorted(loads.values(), key=lambda load: (-load.total, load.person.github.lower(), load.role))
