"""Reads of KEP plan history beside the tracked sets: tracked slips (`releases.rules.SLIP_STATUSES`: removed from
the milestone or deferred), the plan at a release's enhancements freeze, and a KEP's timeline with its plans. The
plan history alone is `keps.selectors_history`. Each function issues a fixed number of queries.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from keps.models import Kep, KepHistoryCursor, KepPlanChange
from keps.selectors_history import PlanHistory, plan_slip_count

from .choices import Freeze
from .models import Milestone, Release, TrackedEnhancement
from .rules import FREEZE_MILESTONE, SLIP_STATUSES, end_of_day_pacific

__all__ = [
    "FreezePlan",
    "planned_at_freeze",
    "slip_list",
    "timeline_with_plans",
    "tracked_slip_count",
    "with_slip_counts",
]


def tracked_slip_count() -> Coalesce:
    """Tracked slips of the outer KEP: releases whose board removed or deferred it."""
    rows = (
        TrackedEnhancement.objects.filter(kep=OuterRef("pk"), status__in=SLIP_STATUSES)
        .order_by()
        .values("kep")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(rows, output_field=IntegerField()), Value(0))


def with_slip_counts(queryset: QuerySet[Kep], *, since: str = "", until: str = "") -> QuerySet[Kep]:
    """KEPs annotated with `plan_slips` (git) and `tracked_slips` (board)."""
    return queryset.annotate(plan_slips=plan_slip_count(since=since, until=until), tracked_slips=tracked_slip_count())


# --- a KEP's page and API -------------------------------------------------------------------------------


@dataclass
class FreezePlan:
    at: datetime.datetime  # the end of enhancements-freeze day, Pacific
    planned: int  # KEPs whose kep.yaml on master named this release as latest-milestone then


def planned_at_freeze(*, release: Release) -> FreezePlan | None:
    """How many KEPs planned `release` at its enhancements freeze: per the last plan change of each KEP
    committed before the end of freeze day (US Pacific). None without a freeze date or any history import."""
    freeze = (
        Milestone.objects.filter(release=release, kind=FREEZE_MILESTONE[Freeze.ENHANCEMENTS], sig__isnull=True)
        .order_by("at")
        .first()
    )
    if freeze is None or not KepHistoryCursor.objects.exists():
        return None
    cutoff = end_of_day_pacific(freeze.at, all_day=freeze.all_day)
    latest: dict[int, str] = defaultdict(str)
    for number, milestone in (
        KepPlanChange.objects.filter(committed_at__lt=cutoff)
        .order_by("kep_number", "position", "committed_at", "pk")
        .values_list("kep_number", "latest_milestone")
    ):
        latest[number] = milestone
    return FreezePlan(at=cutoff, planned=sum(1 for value in latest.values() if value == release.version))


def slip_list(*, since: str = "", until: str = "") -> QuerySet[Kep]:
    """KEPs with at least one slip of either source, annotated, for the slips page (its FilterSet applies the
    rest)."""
    keps = with_slip_counts(Kep.objects.select_related("owning_sig"), since=since, until=until)
    return keps.filter(Q(plan_slips__gt=0) | Q(tracked_slips__gt=0))


def timeline_with_plans(*, timeline, history: PlanHistory) -> None:
    """Set each tracked release's `planned` (`releases.selectors_kep_timeline.TimelineRow`): the plan change in
    force at the end of its enhancements-freeze day (Pacific), so the page shows planned (git) beside tracked
    (board). No query."""
    changes = [row.change for row in history.rows]
    for row in timeline.rows:
        freeze = row.enhancements_freeze
        if freeze is None:
            continue
        cutoff = end_of_day_pacific(freeze.at, all_day=freeze.all_day)
        in_force = [change for change in changes if change.committed_at < cutoff]
        row.planned = in_force[-1] if in_force else None
