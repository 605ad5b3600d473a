"""Reads of KEP plan history (git, `import_keps --history`): what kep.yaml said on master and when that changed
(a slip by `keps.plans.plan_slip`). "Planned", always named as such; the release team's "tracked" slips, beside
it, are `releases.selectors_plans`. Each function issues a fixed number of queries.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from core.versions import parse_version, version_parts

from .models import Kep, KepHistoryCursor, KepPlanChange

__all__ = [
    "PlanHistory",
    "PlanRow",
    "SigSlips",
    "SlipRanking",
    "kep_plan_history",
    "plan_history_imported",
    "plan_slip_count",
    "slip_ranking",
    "with_history_flag",
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
    for change in KepPlanChange.objects.filter(kep_number=number).order_by("position", "committed_at", "pk"):
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


def plan_history_imported() -> bool:
    """Whether `import_keps --history` ever ran (pages say "no history imported" rather than "no slips")."""
    return KepHistoryCursor.objects.exists()
