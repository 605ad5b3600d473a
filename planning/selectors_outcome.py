"""A plan against what happened, per release and SIG: what kep.yaml planned at the enhancements freeze, what the
leads committed here, what the release team tracked at that freeze, and what shipped.

- `planned_at_enhancements_freeze`: the SIG's KEPs whose kep.yaml on master named the release (as
  `latest-milestone` or as its stage's milestone) at the end of freeze day, US Pacific, from the plan history;
  withdrawn, rejected and replaced ones not counted. None before the freeze, without a scheduled freeze, or
  without `import_keps --history`.
- `committed`: the candidates whose current decision is `commit`; None when no decision was recorded.
- `tracked_at_enhancements_freeze` and `shipped`: the release's figures for the SIG (`ReleaseStats`, by the
  release rules' `tracked_at_enhancements_freeze` and done); None when the figures are not known (not
  computed, the standing at the freeze not recorded, the release not over for `shipped`). A SIG with no row
  in a release whose figures are known tracked and shipped nothing there: 0.

Unknown is None, never 0.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Q

from community.models import Sig
from keps.models import Kep, KepHistoryCursor, KepPlanChange
from releases.choices import Freeze
from releases.models import Milestone, Release, ReleaseStats
from releases.rules import FREEZE_MILESTONE, end_of_day_pacific

from .choices import PlanDecisionKind
from .models import PlanDecision
from .planned import NOT_PLANNED_STATUSES, planned_in


@dataclass
class Outcome:
    version: str
    planned_at_enhancements_freeze: int | None
    committed: int | None
    tracked_at_enhancements_freeze: int | None
    shipped: int | None
    freeze_at: datetime.datetime | None = None

    def as_dict(self) -> dict:
        return {
            "planned_at_enhancements_freeze": self.planned_at_enhancements_freeze,
            "committed": self.committed,
            "tracked_at_enhancements_freeze": self.tracked_at_enhancements_freeze,
            "shipped": self.shipped,
        }

    @property
    def known(self) -> bool:
        return any(value is not None for value in self.as_dict().values())


def _figures(stats_sig: ReleaseStats | None, stats_all: ReleaseStats | None) -> tuple[int | None, int | None]:
    """(tracked at the enhancements freeze, shipped) of a SIG in a release, from its stats rows."""
    if stats_sig is None:
        if stats_all is not None and stats_all.figures_known and stats_all.tracked_at_freeze is not None:
            return 0, (None if stats_all.in_cycle else 0)
        return None, None
    if not stats_sig.figures_known:
        return None, None
    return stats_sig.tracked_at_freeze, (None if stats_sig.in_cycle else stats_sig.done)


def outcome_for(plan, *, frozen: dict, now: datetime.datetime) -> Outcome:
    """The outcome of one plan (`selectors.plan_for`), with its kep.yaml plans at the freeze (`frozen`). One
    query (the stats)."""
    planned = None
    if plan.at_freeze and plan.history_imported:
        planned = sum(1 for change in frozen.values() if change.status not in NOT_PLANNED_STATUSES)
    committed = len(plan.committed) if plan.decided else None
    tracked = shipped = None
    if plan.release is not None and plan.at_freeze:
        stats = {
            row.sig_id: row
            for row in ReleaseStats.objects.filter(Q(sig=plan.sig) | Q(sig__isnull=True), release=plan.release)
        }
        tracked, shipped = _figures(stats.get(plan.sig.pk), stats.get(None))
    return Outcome(plan.version, planned, committed, tracked, shipped, freeze_at=plan.freeze_at)


def sig_outcomes(*, sig: Sig, now: datetime.datetime) -> list[Outcome]:
    """The outcome of every scheduled release for `sig`, oldest first (the SIG's plans page and its chart). Five
    queries whatever the number of releases."""
    releases = list(Release.objects.order_by("major", "minor"))
    freezes: dict[int, datetime.datetime] = {}
    for release_id, at, all_day in (
        Milestone.objects.filter(kind=FREEZE_MILESTONE[Freeze.ENHANCEMENTS], sig__isnull=True)
        .order_by("-at")
        .values_list("release_id", "at", "all_day")
    ):
        freezes[release_id] = end_of_day_pacific(at, all_day=all_day)  # the earliest wins (ordered last)
    history = KepHistoryCursor.objects.exists()
    changes: dict[int, list[KepPlanChange]] = defaultdict(list)
    if history:
        for change in (
            KepPlanChange.objects.filter(kep_number__in=Kep.objects.filter(owning_sig=sig).values("number"))
            .only("kep_number", "stage", "status", "latest_milestone", "milestones", "committed_at")
            .order_by("kep_number", "committed_at", "pk")
        ):
            changes[change.kep_number].append(change)
    stats: dict[tuple[int, int | None], ReleaseStats] = {
        (row.release_id, row.sig_id): row
        for row in ReleaseStats.objects.filter(Q(sig=sig) | Q(sig__isnull=True)).defer("funnel", "slips")
    }
    decisions: dict[tuple[str, int], str] = {}
    for version, kep_id, decision in (
        PlanDecision.objects.filter(sig=sig).order_by("at", "pk").values_list("release", "kep_id", "decision")
    ):
        decisions[(version, kep_id)] = decision
    committed: dict[str, int] = defaultdict(int)
    decided = set()
    for (version, _), decision in decisions.items():
        decided.add(version)
        committed[version] += decision == PlanDecisionKind.COMMIT

    history = history and bool(changes)  # a history of other SIGs' files says nothing of this one's plans
    outcomes = []
    for release in releases:
        freeze_at = freezes.get(release.pk)
        passed = freeze_at is not None and freeze_at <= now
        planned = None
        if passed and history:
            at_freeze = {}
            for number, rows in changes.items():
                before = [change for change in rows if change.committed_at < freeze_at]
                if before:
                    at_freeze[number] = before[-1]
            named = planned_in(at_freeze, release.version).values()
            planned = sum(1 for change in named if change.status not in NOT_PLANNED_STATUSES)
        tracked = shipped = None
        if passed:
            tracked, shipped = _figures(stats.get((release.pk, sig.pk)), stats.get((release.pk, None)))
        outcomes.append(
            Outcome(
                release.version,
                planned,
                committed[release.version] if release.version in decided else None,
                tracked,
                shipped,
                freeze_at=freeze_at,
            )
        )
    return outcomes


@dataclass
class ReleasePlanSummary:
    version: str
    decided: bool  # whether any SIG recorded a decision for the release
    committed: int  # KEPs whose current decision is commit, all SIGs
    sigs: int  # SIGs with at least one committed KEP


def release_plan_summary(*, version: str) -> ReleasePlanSummary:
    """The release page's line about plans: one query."""
    current: dict[tuple[int, int], str] = {}
    for sig_id, kep_id, decision in (
        PlanDecision.objects.filter(release=version).order_by("at", "pk").values_list("sig_id", "kep_id", "decision")
    ):
        current[(sig_id, kep_id)] = decision
    committed = [key for key, decision in current.items() if decision == PlanDecisionKind.COMMIT]
    return ReleasePlanSummary(version, bool(current), len(committed), len({sig_id for sig_id, _ in committed}))
