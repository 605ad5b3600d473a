"""Reviewer and approver load of a plan against each person's capacity.

For each approver, PRR approver and reviewer the plan's candidates name: how many of the candidates that count
name them (those decided `commit` or `maybe` once the plan has any decision; every candidate before), against a
limit. The limit is a curator's (`CapacityLimit`, set in the admin) or else the person's proven capacity: the most
KEPs they were that role of that shipped (tracked and done) in any one release before this one, and at least
`MIN_LIMIT`. Each row says how its limit was found (`basis`). Four queries whatever the number of people.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import CharField, Q, Value

from core.versions import version_or_none
from keps.models import Kep, PrrApproval
from releases.choices import EnhancementStatus
from releases.models import TrackedEnhancement

from .choices import CapacityRole, PlanDecisionKind
from .models import CapacityLimit

#: The least a default limit is: nobody's capacity is proven below it.
MIN_LIMIT = 3
#: The decisions whose candidates load people once a plan has decisions.
_LOADING = (PlanDecisionKind.COMMIT, PlanDecisionKind.MAYBE)
_ROLE_ORDER = {CapacityRole.APPROVER: 0, CapacityRole.PRR_APPROVER: 1, CapacityRole.REVIEWER: 2}


@dataclass
class CapacityRow:
    person: str  # GitHub handle
    role: str  # CapacityRole
    planned: int
    limit: int
    basis: str
    keps: list[int] = field(default_factory=list)

    @property
    def over(self) -> bool:
        return self.planned > self.limit

    @property
    def role_label(self) -> str:
        return CapacityRole(self.role).label


def _load(plan) -> dict[tuple[str, str], list[int]]:
    """(handle, role) -> numbers of the candidates that load them."""
    load: dict[tuple[str, str], list[int]] = defaultdict(list)
    for candidate in plan.candidates:
        if not candidate.counted:
            continue
        if plan.decided and candidate.decision_value not in _LOADING:
            continue
        number = candidate.kep.number
        for handle in candidate.approvers:
            load[(handle, CapacityRole.APPROVER)].append(number)
        if candidate.prr_approver:
            load[(candidate.prr_approver, CapacityRole.PRR_APPROVER)].append(number)
        for handle in candidate.reviewers:
            load[(handle, CapacityRole.REVIEWER)].append(number)
    return load


def _before(version: str) -> Q:
    major, minor = version_or_none(version) or (0, 0)
    return Q(release__major__lt=major) | Q(release__major=major, release__minor__lt=minor)


def proven_capacity(*, handles: set[str], before: str) -> dict[tuple[str, str], tuple[int, str]]:
    """(handle, role) -> (most KEPs shipped in one release in that role, that release) over the tracked releases
    before `before`. Two flat queries joined here, the shipped rows and every role's links of `handles` in one
    UNION: grouping each role over the board in the database cost the plan page more than the rows it counts."""
    shipped_rows = TrackedEnhancement.objects.filter(_before(before), status=EnhancementStatus.DONE, kep__isnull=False)
    shipped: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for kep_id, version, stage in shipped_rows.values_list("kep_id", "release__version", "target_stage"):
        shipped[kep_id].append((version, stage))
    if not shipped:
        return {}
    # (kep id, handle, role, stage): a PRR approver counts for the stage that shipped only (the board's
    # "deprecation" is the PRR file's word too); an approver or reviewer for any stage.
    links = [
        getattr(Kep, field)
        .through.objects.filter(person__github__in=handles)
        .order_by()
        .values_list(
            "kep_id", "person__github", Value(role, output_field=CharField()), Value("", output_field=CharField())
        )
        for role, field in ((CapacityRole.APPROVER, "approvers"), (CapacityRole.REVIEWER, "reviewers"))
    ]
    prr = (
        PrrApproval.objects.filter(approver__github__in=handles)
        .order_by()
        .values_list("kep_id", "approver__github", Value(CapacityRole.PRR_APPROVER, output_field=CharField()), "stage")
    )
    counts: dict[tuple[str, str, str], set[int]] = defaultdict(set)  # (handle, role, version) -> KEPs
    for kep_id, handle, role, stage in prr.union(*links, all=True):
        for version, shipped_stage in shipped[kep_id]:
            if not stage or stage == shipped_stage:
                counts[(handle, role, version)].add(kep_id)
    best: dict[tuple[str, str], tuple[int, str]] = {}
    for (handle, role, version), keps in counts.items():
        key, n = (handle, role), len(keps)
        most, most_version = best.get(key, (0, ""))
        if n > most or (n == most and version_or_none(version) > version_or_none(most_version)):
            best[key] = (n, version)
    return best


def capacity_for(plan) -> list[CapacityRow]:
    """The plan's capacity rows, the most loaded (relative to the limit) first."""
    load = _load(plan)
    if not load:
        return []
    handles = {handle for handle, _ in load}
    proven = proven_capacity(handles=handles, before=plan.version)
    overrides = {
        (limit.person.github, limit.role): limit
        for limit in CapacityLimit.objects.filter(person__github__in=handles).select_related("person", "set_by")
    }
    rows = []
    for (handle, role), numbers in load.items():
        label = CapacityRole(role).label.lower()
        override = overrides.get((handle, role))
        if override is not None:
            who = override.set_by.username if override.set_by else "a curator"
            basis = f"set by {who} on {override.set_at:%Y-%m-%d}" + (f": {override.note}" if override.note else "")
            limit = override.limit
        else:
            most, version = proven.get((handle, role), (0, ""))
            if most >= MIN_LIMIT:
                basis = f"proven: {most} shipped as {label} in v{version}, the most in one release"
            elif most:
                basis = f"at least {MIN_LIMIT}: the most shipped as {label} in one release is {most} (v{version})"
            else:
                basis = f"at least {MIN_LIMIT}: no tracked release shipped a KEP with them as {label}"
            limit = max(MIN_LIMIT, most)
        rows.append(CapacityRow(person=handle, role=role, planned=len(numbers), limit=limit, basis=basis, keps=numbers))
    rows.sort(key=lambda r: (-(r.planned - r.limit), _ROLE_ORDER[r.role], r.person))
    return rows
