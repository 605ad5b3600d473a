"""Reads of the KEPs as kep.yaml describes them: the KEP list and page, design groups. What the release team
recorded about a KEP (its timeline, perma-betas, feature gates' stages, approver load) is read by the releases
app's selectors (`releases.selectors_kep_timeline`, `_perma_beta`, `_feature_gates`, `_approvers`).

Every function issues a fixed number of queries whatever the number of rows (joins, prefetches and
subqueries, never a query per row); the view tests assert it.
"""

from dataclasses import dataclass

from django.db.models import (
    Count,
    Prefetch,
    Q,
    QuerySet,
)

from core.versions import version_parts

from .choices import KepStatus
from .filtersets import KepFilterSet
from .models import DesignGroup, Kep, PrrApproval

#: KEPs still being worked on. A design group past `DESIGN_GROUP_SPLIT_AT` of them should be split
#: (the coverage overview's rule of thumb).
ACTIVE_KEP_STATUSES = (KepStatus.PROVISIONAL, KepStatus.IMPLEMENTABLE)
DESIGN_GROUP_SPLIT_AT = 20


# --- /keps/ ---------------------------------------------------------------------------------------------


def kep_list(*, filters: dict | None = None) -> QuerySet[Kep]:
    """Every KEP with what the list shows; `filters` (query parameters) applies KepFilterSet."""
    latest_major, latest_minor = version_parts("latest_milestone")
    queryset = (
        Kep.objects.select_related("owning_sig")
        .prefetch_related(Prefetch("design_groups", queryset=DesignGroup.objects.only("pk", "name", "slug")))
        .annotate(latest_major=latest_major, latest_minor=latest_minor)
        .order_by("number")
    )
    if filters is None:
        return queryset
    return KepFilterSet(filters, queryset=queryset).qs


# --- /keps/<number>/ ------------------------------------------------------------------------------------


def kep_detail_queryset() -> QuerySet[Kep]:
    """KEPs with everything their page shows, prefetched."""
    return Kep.objects.select_related("owning_sig").prefetch_related(
        "participating_sigs",
        "authors",
        "reviewers",
        "approvers",
        "feature_gates",
        Prefetch("prr_approvals", queryset=PrrApproval.objects.select_related("approver").order_by("stage")),
        "design_groups",
    )


# --- /design-groups/ ------------------------------------------------------------------------------------


def design_group_list() -> QuerySet[DesignGroup]:
    return (
        DesignGroup.objects.prefetch_related("sigs")
        .annotate(
            kep_count=Count("keps", distinct=True),
            active_count=Count("keps", filter=Q(keps__status__in=ACTIVE_KEP_STATUSES), distinct=True),
        )
        .order_by("name")
    )


@dataclass
class GroupKep:
    kep: Kep
    other_groups: list[DesignGroup]

    @property
    def active(self) -> bool:
        return self.kep.status in ACTIVE_KEP_STATUSES


@dataclass
class DesignGroupDetail:
    group: DesignGroup
    keps: list[GroupKep]

    @property
    def active_count(self) -> int:
        return sum(1 for k in self.keps if k.active)

    @property
    def needs_split(self) -> bool:
        return self.active_count > DESIGN_GROUP_SPLIT_AT

    @property
    def shared(self) -> list[GroupKep]:
        return [k for k in self.keps if k.other_groups]


def design_group_detail(*, group: DesignGroup) -> DesignGroupDetail:
    """The group's KEPs (by stage, then number), each with the other groups it also belongs to."""
    keps = (
        group.keps.select_related("owning_sig")
        .prefetch_related(
            Prefetch("design_groups", queryset=DesignGroup.objects.only("pk", "name", "slug"), to_attr="all_groups")
        )
        .order_by("number")
    )
    return DesignGroupDetail(
        group=group,
        keps=[GroupKep(kep=k, other_groups=[g for g in k.all_groups if g.pk != group.pk]) for k in keps],
    )
