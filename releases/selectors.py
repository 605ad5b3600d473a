"""Reads for the release pages: releases with their stats, schedules, tracked enhancements, retros, meetings.

Stats come from `ReleaseStats` rows (written by `releases.services.stats`); nothing here recomputes them.
Every selector issues a fixed number of queries, whatever the number of rows it returns.
"""

import datetime
from collections import Counter
from dataclasses import dataclass, field

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from community.models import Sig
from keps.models import Kep

from .choices import (
    DocsStatus,
    ExceptionDecision,
    MilestoneKind,
    PrrStatus,
    ReleaseState,
    StatsSource,
)
from .filtersets import ReleaseFilterSet, TrackedEnhancementFilterSet
from .models import (
    EnhancementException,
    Milestone,
    Release,
    ReleaseStats,
    TrackedEnhancement,
)
from .prr import prr_approver_of, prr_of, with_prr
from .rules import (
    FREEZE_KINDS,
    PACIFIC,
    SLIP_STATUSES,
    at_risk_statuses_for,
    is_in_play,
    milestone_passed,
    prr_status,
    release_day_passed,
)
from .services.board import BoardCount, ChecklistFacts, WeeklyNumbers, checklist_comment, weekly_numbers

# -- releases ------------------------------------------------------------------------------------------------------


def _all_sigs_stats(field_name: str) -> Subquery:
    return Subquery(
        ReleaseStats.objects.filter(release=OuterRef("pk"), sig__isnull=True).values(field_name)[:1],
    )


def _milestone_at(kind: str) -> Subquery:
    return Subquery(
        Milestone.objects.filter(release=OuterRef("pk"), kind=kind, sig__isnull=True).order_by("at").values("at")[:1]
    )


_FIGURES_KNOWN = (
    Q(stats_tracked__gt=0) | Q(has_enhancements=True) | Q(recorded_tracked__isnull=False) | Q(in_cycle=True)
)


#: `ReleaseStats.tracked_at_freeze` is None, in SQL.
_TRACKED_AT_FREEZE_UNKNOWN = Q(in_cycle=False) & (
    Q(freezes_undated=True) | Q(stats_not_recorded__gt=0, tracked_source=StatsSource.TRACKED_ROWS)
)


def release_list(*, filters: dict | None = None) -> QuerySet[Release]:
    """Every release, oldest first, with its key freezes and its all-SIG stats annotated (None where not computed).

    Annotations: `enhancements_freeze_at`, `code_freeze_at`, `release_on` (actual, else planned date),
    `tracked` (`ReleaseStats.tracked_at_freeze`), `done` (None where nothing of a shipped release is recorded),
    `merge_rate`, `stats_source`, `tracked_source` (history or retro tally), `in_cycle` (progress before the
    release day, no merge rate) — sortable, and one query however many releases.
    """
    queryset = (
        Release.objects.annotate(
            enhancements_freeze_at=_milestone_at(MilestoneKind.ENHANCEMENTS_FREEZE),
            code_freeze_at=_milestone_at(MilestoneKind.CODE_FREEZE),
            release_on=Coalesce("actual_release_date", "planned_release_date"),
            stats_tracked=_all_sigs_stats("tracked"),
            stats_done=_all_sigs_stats("done"),
            merge_rate=_all_sigs_stats("merge_rate"),
            stats_source=_all_sigs_stats("source"),
            recorded_tracked=_all_sigs_stats("recorded_tracked"),
            recorded_done=_all_sigs_stats("recorded_done"),
            tracked_source=_all_sigs_stats("tracked_source"),
            in_cycle=_all_sigs_stats("in_cycle"),
            freezes_undated=_all_sigs_stats("counts__freezes_undated"),
            stats_not_recorded=_all_sigs_stats("not_recorded"),
            # `rules.figures`: whether the release-wide figures are known, for how many SIGs they are recorded,
            # and where they come from.
            release_wide_known=_all_sigs_stats("release_wide_known"),
            sigs_recorded=_all_sigs_stats("sigs_recorded"),
            figures_from=_all_sigs_stats("figures_from"),
            # Counts by status, for `rules.outcome_not_recorded` (the CSV's and the Done cell's unknown outcomes).
            stats_status_counts=_all_sigs_stats("counts__status"),
            # For the state's wording (`rules.release_state_label`): any date on record besides the cycle's own.
            has_known_dates=Exists(Milestone.objects.filter(release=OuterRef("pk")))
            | Exists(EnhancementException.objects.filter(release=OuterRef("pk"))),
            has_enhancements=Exists(TrackedEnhancement.objects.filter(release=OuterRef("pk"))),
        )
        .annotate(
            # `rules.figures_known` in SQL: a shipped release nothing is recorded of has no counts, not zeros; and
            # `ReleaseStats.tracked_at_freeze`: with no freeze dated, nothing counts as tracked at one.
            tracked=Case(
                When(_TRACKED_AT_FREEZE_UNKNOWN, then=None),
                When(_FIGURES_KNOWN, then=F("stats_tracked")),
                default=None,
            ),
            done=Case(When(_FIGURES_KNOWN, then=F("stats_done")), default=None),
        )
        .order_by("major", "minor")
        # Each SIG's retro tally, with its scope, for the "Retro tally" column (one query for every release).
        .prefetch_related(
            Prefetch(
                "stats",
                queryset=ReleaseStats.objects.filter(sig__isnull=False, recorded_tracked__isnull=False)
                .select_related("sig")
                .order_by("sig__slug"),
                to_attr="sig_tallies",
            )
        )
    )
    if filters is not None:
        queryset = ReleaseFilterSet(filters, queryset=queryset).qs
    return queryset


def release_is_over(*, release: Release, now=None) -> bool:
    """Whether the release has shipped (its state, or its release day passed): what today's files (kep.yaml, the
    prod-readiness approvals) say of its KEPs is then today's, not as of the release."""
    return release.state == ReleaseState.RELEASED or release_day_passed(
        release_day=release.release_date, now=now or timezone.now()
    )


def release_get(*, version: str) -> Release:
    """The release with this version ("1.24" or "v1.24"); raises Release.DoesNotExist."""
    version = version.removeprefix("v")
    return Release.objects.get(version=version)


def release_previous(*, release: Release) -> Release | None:
    """The release just before this one in version order."""
    return (
        Release.objects.filter(Q(major__lt=release.major) | Q(major=release.major, minor__lt=release.minor))
        .order_by("-major", "-minor")
        .first()
    )


def release_stats_get(*, release: Release, sig: Sig | None = None) -> ReleaseStats | None:
    """The stored stats of a release for one SIG or (sig None) all SIGs; None when not computed yet."""
    return ReleaseStats.objects.filter(release=release, sig=sig).first()


def release_stats_by_sig(*, release: Release) -> list[ReleaseStats]:
    """The stored per-SIG stats of a release, by SIG slug (one query)."""
    return list(ReleaseStats.objects.filter(release=release, sig__isnull=False).select_related("sig").order_by("sig"))


def release_stats_all(*, release: Release) -> tuple[ReleaseStats | None, list[ReleaseStats]]:
    """`release_stats_get` (all SIGs) and `release_stats_by_sig` together, in one query."""
    rows = list(ReleaseStats.objects.filter(release=release).select_related("sig").order_by("sig"))
    return next((row for row in rows if row.sig_id is None), None), [row for row in rows if row.sig_id is not None]


@dataclass
class ChartData:
    labels: list[str]
    merge_rate: list[float | None]
    tracked: list[float | None]
    done: list[float | None]
    #: A retro's recorded tally where figures were also synced/computed (None elsewhere): shown beside them.
    recorded_tracked: list[float | None] = field(default_factory=list)
    recorded_done: list[float | None] = field(default_factory=list)


def release_chart_data(*, releases) -> ChartData:
    """Merge rate and tracked vs done per release, from rows annotated by `release_list()` (no queries)."""
    labels, rate, tracked, done = [], [], [], []
    for release in releases:
        labels.append(release.version)
        rate.append(release.merge_rate)
        tracked.append(release.tracked)
        done.append(release.done)
    # The tally beside the history's figures, where it is not already the headline.
    both = [
        getattr(r, "recorded_tracked", None) is not None
        and r.stats_source != "recorded_tally"
        and getattr(r, "tracked_source", None) != "recorded_tally"
        for r in releases
    ]
    return ChartData(
        labels=labels,
        merge_rate=rate,
        tracked=tracked,
        done=done,
        recorded_tracked=[r.recorded_tracked if ok else None for r, ok in zip(releases, both, strict=True)],
        recorded_done=[r.recorded_done if ok else None for r, ok in zip(releases, both, strict=True)],
    )


# -- schedule ------------------------------------------------------------------------------------------------------


@dataclass
class ScheduleEntry:
    """One milestone as the schedule shows it: past or next, in UTC and in US Pacific time."""

    milestone: Milestone
    is_past: bool
    is_next: bool = False
    utc: datetime.datetime = field(init=False)
    pacific: datetime.datetime = field(init=False)

    def __post_init__(self):
        self.utc = self.milestone.at.astimezone(datetime.UTC)
        self.pacific = self.milestone.at.astimezone(PACIFIC)

    @property
    def title(self) -> str:
        return self.milestone.label or self.milestone.get_kind_display()


def milestone_is_past(milestone: Milestone, now: datetime.datetime) -> bool:
    """An all-day milestone is past once its (UTC) day is over; a timed one once its instant is."""
    end = milestone.at + datetime.timedelta(days=1) if milestone.all_day else milestone.at
    return end <= now


def release_schedule(*, release: Release, now: datetime.datetime | None = None) -> list[ScheduleEntry]:
    """Every milestone of a release in time order, past ones marked and the next one flagged (one query)."""
    now = now or timezone.now()
    milestones = release.milestones.select_related("sig").order_by("at", "kind", "pk")
    entries = [ScheduleEntry(milestone=m, is_past=milestone_is_past(m, now)) for m in milestones]
    upcoming = next((e for e in entries if not e.is_past), None)
    if upcoming is not None:
        upcoming.is_next = True
    return entries


def release_cycle_dates(
    *, release: Release, schedule: list[ScheduleEntry]
) -> tuple[datetime.date | None, datetime.date | None]:
    """First and last day of the cycle: the release's own dates, else its cycle-start and release milestones."""
    start = release.cycle_start
    end = release.release_date
    for entry in schedule:
        if start is None and entry.milestone.kind == MilestoneKind.CYCLE_START:
            start = entry.milestone.date
        if entry.milestone.kind == MilestoneKind.RELEASE and end is None:
            end = entry.milestone.date
    return start, end


# -- tracked enhancements ------------------------------------------------------------------------------------------


def _slip_count() -> Coalesce:
    """Rows of the same KEP with a slip status in this release or an earlier one (the contract's definition)."""
    earlier_or_same = Q(release__major__lt=OuterRef("release__major")) | Q(
        release__major=OuterRef("release__major"), release__minor__lte=OuterRef("release__minor")
    )
    slips = (
        TrackedEnhancement.objects.filter(earlier_or_same, kep=OuterRef("kep"), status__in=SLIP_STATUSES)
        .order_by()
        .values("kep")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(slips, output_field=IntegerField()), Value(0))


def tracked_enhancement_list(*, release: Release, filters: dict | None = None) -> QuerySet[TrackedEnhancement]:
    """The tracked enhancements of a release with KEP, SIG and contact joined and `slips` annotated (0 for a
    KEP-less feature: slips follow a KEP across releases).

    `filters` are the query parameters of `TrackedEnhancementFilterSet` (q, sig, type, stage, status). Rows carry
    their PRR file's approver (`releases.prr.with_prr`), so `prr_of(row)` costs no query.
    """
    # Through the release's own manager: each row's `release` is the object given (Django's known related
    # objects), with no join to read it again for every row.
    queryset = with_prr(
        release.tracked_enhancements.all()
        .select_related("kep", "sig", "enhancements_contact", "prr_approver")
        .annotate(slips=_slip_count(), **latest_exception_annotations())
        .in_board_order()
    )
    if filters is not None:
        queryset = TrackedEnhancementFilterSet(filters, queryset=queryset).qs
    return queryset


def latest_exception_annotations() -> dict:
    """`exception_freeze`, `exception_decision`, `exception_deadline` of a row's latest exception request (None
    without one): the board's exception columns, as subqueries so the list stays one query."""
    latest = EnhancementException.objects.filter(tracked_enhancement=OuterRef("pk")).order_by("-requested_at", "-pk")
    return {f"exception_{name}": Subquery(latest.values(name)[:1]) for name in ("freeze", "decision", "deadline")}


# -- the board's numbers and texts -------------------------------------------------------------------------------------


def release_board_counts(*, release: Release) -> list[BoardCount]:
    """How many tracked enhancements of a release share each SIG, status and stage (one query)."""
    rows = (
        TrackedEnhancement.objects.filter(release=release)
        .order_by()
        .values_list("sig__slug", "status", "target_stage")
        .annotate(n=Count("pk"))
    )
    return [BoardCount(sig=sig, status=status, stage=stage, count=n) for sig, status, stage, n in rows]


def release_exception_counts(*, release: Release) -> list[tuple[str, int]]:
    """(decision, count) of the exception requests of a release (one query)."""
    rows = (
        EnhancementException.objects.filter(release=release).order_by().values_list("decision").annotate(n=Count("pk"))
    )
    return list(rows)


def release_weekly_numbers(
    *, release: Release, board_counts: list[BoardCount] | None = None, exception_requests=None
) -> WeeklyNumbers:
    """The release page's weekly numbers: by status and stage, overall and per SIG, and exception requests.
    A page that has read the release's board counts or every one of its exception requests already passes them,
    and they are counted from those rather than asked for again."""
    if exception_requests is None:
        exceptions = release_exception_counts(release=release)
    else:
        exceptions = list(Counter(request.decision for request in exception_requests).items())
    counts = release_board_counts(release=release) if board_counts is None else board_counts
    return weekly_numbers(counts=counts, exceptions=exceptions)


def release_pending_exceptions(*, release: Release, sig: Sig | None = None) -> list[EnhancementException]:
    """Exception requests of a release still waiting for a decision, earliest deadline first; those about no
    tracked enhancement (a kubernetes/kubernetes issue) too, except when asked for one SIG's."""
    queryset = EnhancementException.objects.filter(release=release, decision=ExceptionDecision.PENDING)
    if sig is not None:
        queryset = queryset.filter(tracked_enhancement__sig=sig)
    return list(
        queryset.select_related("tracked_enhancement__kep", "tracked_enhancement__sig").order_by(
            F("deadline").asc(nulls_last=True), "requested_at", "pk"
        )
    )


def checklist_facts(*, tracked_enhancement: TrackedEnhancement) -> ChecklistFacts:
    """What sigtracker knows about a tracked KEP for the checklist comment (a few queries)."""
    row = tracked_enhancement
    kep = row.kep
    stage = row.target_stage or kep.stage
    # .all() so that a KEP read with its page's prefetches (authors, PRR approvals) costs no query here.
    approver = next((a for a in kep.prr_approvals.all() if stage and a.stage == stage), None)
    # The PRR rule (`rules.prr_status`): the board's status where it says something, else the file's approver.
    prr = prr_status(board_status=row.prr_status, file_approver=approver.approver.github if approver else "")
    board_approver = row.prr_approver.github if row.prr_approver_id else ""
    if hasattr(row, "enhancements_freeze_at"):
        freeze = row.enhancements_freeze_at
    else:
        freeze = _enhancements_freeze_at(row.release_id).first()
    return ChecklistFacts(
        kep_number=kep.number,
        version=row.release.version,
        owners=tuple(sorted((a.github for a in kep.authors.all()), key=str.lower)),
        stage=stage,
        has_kep_yaml=bool(kep.source_path) and not kep.is_stub,
        kep_status=kep.status,
        latest_milestone=kep.latest_milestone,
        prr_approver=(board_approver or (approver.approver.github if approver else ""))
        if prr == PrrStatus.APPROVED
        else "",
        prr_approved=prr == PrrStatus.APPROVED,
        status=row.status,
        opted_in=is_in_play(row.status),
        docs_placeholder=row.docs_status != DocsStatus.NONE,
        freeze_at=freeze,
    )


def _enhancements_freeze_at(release_id) -> QuerySet:
    return (
        Milestone.objects.filter(release_id=release_id, kind=MilestoneKind.ENHANCEMENTS_FREEZE, sig__isnull=True)
        .order_by("at")
        .values_list("at", flat=True)
    )


def kep_latest_board_row(*, kep) -> TrackedEnhancement | None:
    """The KEP's row in the newest release that tracks it, with PRR approver and the release's enhancements freeze
    (one query; its exception requests are among the KEP page's, `selectors_published.kep_exception_requests`).
    `kep` is kept on the row, with whatever it has prefetched."""
    row = (
        with_prr(TrackedEnhancement.objects.filter(kep=kep))
        .select_related("release", "prr_approver")
        .annotate(enhancements_freeze_at=Subquery(_enhancements_freeze_at(OuterRef("release_id"))[:1]))
        .order_by("-release__major", "-release__minor")
        .first()
    )
    if row is not None:
        row.kep = kep
        # The PRR rule's answer, for the page: `prr_label`, `prr_by` (approver) and whether the file said it.
        prr = prr_of(row)
        row.prr_label = PrrStatus(prr).label
        row.prr_by = prr_approver_of(row)
        row.prr_from_file = prr != row.prr_status
    return row


def tracked_enhancement_checklist(*, tracked_enhancement: TrackedEnhancement) -> str:
    """The enhancements team's checklist comment for one tracked KEP (generated only; nothing is posted)."""
    return checklist_comment(checklist_facts(tracked_enhancement=tracked_enhancement))


def tracked_enhancement_checklist_due(*, tracked_enhancement: TrackedEnhancement, now: datetime.datetime) -> str:
    """The checklist comment while it can still be posted: the comment says "as we approach enhancements freeze",
    so "" once the release's enhancements freeze has come or the release is out. (For a row of a past release the
    KEP's stage today also says nothing of the stage it targeted then.)"""
    if tracked_enhancement.release.state == ReleaseState.RELEASED:
        return ""
    facts = checklist_facts(tracked_enhancement=tracked_enhancement)
    if milestone_passed(facts.freeze_at, now=now):
        return ""
    return checklist_comment(facts)


def at_risk_for_milestone(*, release: Release, milestone: Milestone | None, sig: Sig | None = None, limit: int = 50):
    """Tracked enhancements at risk for the freeze `milestone` closes (any at-risk status if it closes none).

    Returns `(rows, total, statuses)`: at most `limit` rows, oldest KEP first, how many there are in all, and the
    statuses that counted as at risk.
    """
    statuses = at_risk_statuses_for(milestone.kind if milestone else None)
    queryset = TrackedEnhancement.objects.filter(release=release, status__in=statuses)
    if sig is not None:
        queryset = queryset.filter(sig=sig)
    rows = list(queryset.select_related("kep", "sig", "enhancements_contact").in_board_order()[:limit])
    # Always count, even when the rows fit: the page then issues the same queries whatever the data.
    return rows, queryset.count(), statuses


# -- dashboard -----------------------------------------------------------------------------------------------------


def next_freeze(*, release: Release, now: datetime.datetime | None = None) -> Milestone | None:
    """The release's next freeze that is not over yet (all SIGs' freezes and SIG freezes alike)."""
    now = now or timezone.now()
    # An all-day freeze lasts until the end of its UTC day, so look one day back and filter precisely.
    candidates = (
        release.milestones.filter(kind__in=FREEZE_KINDS, at__gt=now - datetime.timedelta(days=1))
        .select_related("sig")
        .order_by("at", "pk")
    )
    return next((m for m in candidates if not milestone_is_past(m, now)), None)


def milestone_list(*, release: Release | None = None) -> QuerySet[Milestone]:
    """Milestones of one release (or all), in version then time order, with release and SIG joined."""
    queryset = Milestone.objects.select_related("release", "sig").order_by(
        "release__major", "release__minor", "at", "kind", "pk"
    )
    if release is not None:
        queryset = queryset.filter(release=release)
    return queryset


def person_sig_ids(person) -> set[int]:
    """The SIGs a person belongs to, for deciding who may change their details (email, reminder opt-out).

    A person belongs to the owning SIG of every KEP they author, review or approve, and to the SIG of every
    tracked enhancement they are the enhancements contact of. (PRR approvals and meeting presentations do not
    count: PRR approvers and presenters serve every SIG.)
    """
    if not person.pk:
        return set()
    kep_sigs = Kep.objects.filter(Q(authors=person) | Q(reviewers=person) | Q(approvers=person)).values_list(
        "owning_sig_id", flat=True
    )
    contact_sigs = TrackedEnhancement.objects.filter(enhancements_contact=person).values_list("sig_id", flat=True)
    return set(kep_sigs) | set(contact_sigs)


def release_current() -> Release | None:
    """The release pages default to: the one whose cycle holds today, else the latest released, else the first
    planned (`ReleaseQuerySet.current`, the rule of `releases.rules.current_release`)."""
    return Release.objects.current()
