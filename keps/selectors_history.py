"""Reads of KEP plan history (git, `import_keps --history`) beside the tracked sets (board, labels, notes).

Two sources, always named: "planned" is what kep.yaml said on master and when that changed (a slip by
`releases.rules.plan_slip`); "tracked" is the release team's record (`releases.rules.SLIP_STATUSES`: removed from
the milestone or deferred). Each function issues a fixed number of queries.
"""

from __future__ import annotations

import datetime
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from releases.choices import Freeze
from releases.models import Milestone, Release, TrackedEnhancement, parse_version
from releases.rules import FREEZE_MILESTONE, SLIP_STATUSES, end_of_day_pacific

from .models import Kep, KepHistoryCursor, KepPlanChange
from .selectors import version_parts

__all__ = [
    "PlanHistory",
    "SlipRanking",
    "kep_plan_history",
    "plan_slip_count",
    "planned_at_freeze",
    "slip_list",
    "slip_ranking",
    "timeline_with_plans",
    "tracked_slip_count",
    "with_history_flag",
    "with_slip_counts",
]

#: Plan fields a row shows a change of, with their labels.
_SHOWN = (("stage", "stage"), ("status", "status"), ("latest_milestone", "latest-milestone"))


def _release_bounds(queryset: QuerySet, column: str, *, since: str = "", until: str = "") -> QuerySet:
    """`queryset` where the `1.27`-style `column` lies in [since, until] (numerically; either may be empty)."""
    major, minor = version_parts(column)
    queryset = queryset.annotate(_major=major, _minor=minor)
    for bound, newer in ((since, True), (until, False)):
        try:
            b_major, b_minor = parse_version(bound) if bound else (None, None)
        except ValueError:
            continue
        if b_major is None:
            continue
        if newer:
            queryset = queryset.filter(Q(_major__gt=b_major) | Q(_major=b_major, _minor__gte=b_minor))
        else:
            queryset = queryset.filter(Q(_major__lt=b_major) | Q(_major=b_major, _minor__lte=b_minor))
    return queryset


def plan_slip_count(*, since: str = "", until: str = "") -> Coalesce:
    """Planned slips of the outer KEP (by number), optionally of releases slipped from in [since, until]."""
    slips = _release_bounds(
        KepPlanChange.objects.filter(kep_number=OuterRef("number")).exclude(slipped_from=""),
        "slipped_from",
        since=since,
        until=until,
    )
    counted = slips.order_by().values("kep_number").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


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
class PlanRow:
    change: KepPlanChange
    changes: list[tuple[str, str, str]]  # (field label, from, to)
    milestones_from: dict = field(default_factory=dict)

    @property
    def slipped(self) -> bool:
        return bool(self.change.slipped_from)


@dataclass
class PlanHistory:
    rows: list[PlanRow] = field(default_factory=list)
    imported: bool = False  # whether any history import ran at all

    @property
    def slips(self) -> int:
        return sum(row.slipped for row in self.rows)


def with_history_flag(queryset: QuerySet[Kep]) -> QuerySet[Kep]:
    """KEPs annotated with `plan_history_imported` (whether `import_keps --history` ever ran), folded into the
    KEP's own query so the page pays one query for its plan history, not two."""
    return queryset.annotate(plan_history_imported=Exists(KepHistoryCursor.objects.all()))


def kep_plan_history(*, number: int, imported: bool | None = None) -> PlanHistory:
    """Each change of the KEP's plan on master, oldest first, with what changed (from -> to). `imported`: the
    KEP's `plan_history_imported` (`with_history_flag`) when the caller has it, else one more query."""
    history = PlanHistory(imported=KepHistoryCursor.objects.exists() if imported is None else imported)
    previous: KepPlanChange | None = None
    for change in KepPlanChange.objects.filter(kep_number=number).order_by("committed_at", "pk"):
        diffs = []
        for name, label in _SHOWN:
            before = getattr(previous, name) if previous else ""
            if before != getattr(change, name):
                diffs.append((label, before, getattr(change, name)))
        old_map = previous.milestones if previous else {}
        for stage in ("alpha", "beta", "stable", "deprecated", "removed"):
            if old_map.get(stage, "") != change.milestones.get(stage, ""):
                diffs.append((f"milestone.{stage}", old_map.get(stage, ""), change.milestones.get(stage, "")))
        history.rows.append(PlanRow(change=change, changes=diffs))
        previous = change
    return history


# --- the slips page -------------------------------------------------------------------------------------


@dataclass
class SigSlips:
    slug: str
    plan_slips: int = 0
    tracked_slips: int = 0
    keps_slipped: int = 0


@dataclass
class SlipRanking:
    sigs: list[SigSlips]
    by_release: list[tuple[str, int]]  # (release slipped from, planned slips), oldest first


def slip_ranking(*, keps: QuerySet[Kep], since: str = "", until: str = "") -> SlipRanking:
    """Per SIG (owning SIG of the KEPs in `keps`, already annotated by `with_slip_counts`) and per release
    slipped from: two queries whatever the number of KEPs."""
    sigs: dict[str, SigSlips] = {}
    numbers = []
    for slug, plan_slips, tracked_slips, number in keps.values_list(
        "owning_sig__slug", "plan_slips", "tracked_slips", "number"
    ):
        row = sigs.setdefault(slug, SigSlips(slug))
        row.plan_slips += plan_slips
        row.tracked_slips += tracked_slips
        row.keps_slipped += bool(plan_slips or tracked_slips)
        numbers.append(number)
    per_release: Counter[str] = Counter(
        dict(
            _release_bounds(
                KepPlanChange.objects.filter(kep_number__in=numbers).exclude(slipped_from=""),
                "slipped_from",
                since=since,
                until=until,
            )
            .order_by()
            .values("slipped_from")
            .annotate(n=Count("pk"))
            .values_list("slipped_from", "n")
        )
    )
    ranked = sorted((row for row in sigs.values() if row.plan_slips or row.tracked_slips), key=_sig_rank)
    return SlipRanking(sigs=ranked, by_release=sorted(per_release.items(), key=lambda item: parse_version(item[0])))


def _sig_rank(row: SigSlips):
    return (-row.plan_slips, -row.tracked_slips, row.slug)


# --- the release page -----------------------------------------------------------------------------------


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
        .order_by("kep_number", "committed_at", "pk")
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
    """Set each tracked release's `planned` (`keps.selectors.TimelineRow`): the plan change in force at the end of
    its enhancements-freeze day (Pacific), so the page shows planned (git) beside tracked (board). No query."""
    changes = [row.change for row in history.rows]
    for row in timeline.rows:
        freeze = row.enhancements_freeze
        if freeze is None:
            continue
        cutoff = end_of_day_pacific(freeze.at, all_day=freeze.all_day)
        in_force = [change for change in changes if change.committed_at < cutoff]
        row.planned = in_force[-1] if in_force else None
