"""Reads for the KEP, feature-gate, perma-beta, approver and design-group pages.

Every function issues a fixed number of queries whatever the number of rows (joins, prefetches and
subqueries, never a query per row); the view tests assert it.
"""

import datetime
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import (
    Case,
    Count,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
    prefetch_related_objects,
)
from django.db.models.functions import Cast, StrIndex, Substr
from django.utils import timezone

from community.models import Person
from meetings.models import AgendaItem, Meeting
from releases.choices import EnhancementStatus, ExceptionDecision, Freeze, TargetStage
from releases.models import (
    EnhancementException,
    EnhancementStatusChange,
    Milestone,
    Release,
    TrackedEnhancement,
    parse_version,
)
from releases.rules import FREEZE_MILESTONE, SLIP_STATUSES, STATUS_FREEZE, freeze_missed, release_day_passed

from .choices import CLOSED_KEP_STATUSES, KepStage, KepStatus, PrrStage
from .filtersets import KepFilterSet, PermaBetaFilterSet
from .models import DesignGroup, FeatureGate, Kep, PrrApproval

#: KEPs still being worked on. A design group past `DESIGN_GROUP_SPLIT_AT` of them should be split
#: (the coverage overview's rule of thumb).
ACTIVE_KEP_STATUSES = (KepStatus.PROVISIONAL, KepStatus.IMPLEMENTABLE)
DESIGN_GROUP_SPLIT_AT = 20
#: The perma-beta list's default N.
PERMA_BETA_DEFAULT_RELEASES = 3
_FREEZE_OF_KIND = {kind: freeze for freeze, kind in FREEZE_MILESTONE.items()}
#: Agenda items listed on a KEP's page; the rest are one click away on the filtered meetings list.
KEP_MENTIONS_SHOWN = 50


def version_parts(field_name: str) -> tuple[Case, Case]:
    """SQL expressions for the numeric major and minor of a `1.27`-style text column (NULL when blank),
    so that 1.9 sorts before 1.10 in every database."""
    dot = StrIndex(field_name, Value("."))
    major = Case(
        When(**{field_name: ""}, then=Value(None)),
        default=Cast(Substr(field_name, 1, dot - 1), IntegerField()),
        output_field=IntegerField(),
    )
    minor = Case(
        When(**{field_name: ""}, then=Value(None)),
        default=Cast(Substr(field_name, dot + 1), IntegerField()),
        output_field=IntegerField(),
    )
    return major, minor


def _version_or_none(value: str) -> tuple[int, int] | None:
    try:
        return parse_version(value) if value else None
    except ValueError:
        return None


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


@dataclass
class TimelineRow:
    tracked: TrackedEnhancement
    missed_freeze: str = ""  # label of the freeze it slipped at, for removed/deferred rows
    assumed: bool = False  # part of its history was recorded after the fact, at assumed instants
    reason: str = ""  # the note on the change to its final status (e.g. "missed code freeze: PR #123 not merged")
    link: str = ""  # where that change was made (e.g. the KEP's GitHub tracking issue)
    slips_so_far: int = 0  # slips of this KEP up to and including this release
    # Corrections of its history, oldest first: (the superseded row, the row that superseded it); history is
    # append-only, so a renamed actor or a rewritten event shows here rather than vanishing.
    corrections: list = field(default_factory=list)
    enhancements_freeze: Milestone | None = None  # the release-wide one, for what kep.yaml planned by then
    planned: object = None  # the plan (git) at the end of that freeze day, set by selectors_history

    @property
    def release(self) -> Release:
        return self.tracked.release

    @property
    def slipped(self) -> bool:
        return self.tracked.status in SLIP_STATUSES


@dataclass
class KepTimeline:
    rows: list[TimelineRow] = field(default_factory=list)
    slips: int = 0
    # stage -> (release version, where it came from): only a stage shipped in a released release (a done row)
    reached: dict[str, tuple[str, str]] = field(default_factory=dict)
    # stage -> release version kep.yaml plans it for, where it has not been reached there: a plan, not a fact
    planned: dict[str, str] = field(default_factory=dict)


#: Exception decisions that leave a KEP out of the freeze it asked to pass.
_REFUSED = (ExceptionDecision.REJECTED, ExceptionDecision.REMOVED, ExceptionDecision.REVERTED)


def _missed_freeze(changes: list[EnhancementStatusChange], freezes: list[Milestone], denied: str | None = None) -> str:
    """Which freeze a removed/deferred row slipped at (`releases.rules.freeze_missed`), from the last board
    status it held before it left and the freezes that had passed by then. Changes at assumed instants (a
    fixture, a retro table) say where a KEP ended up, not when or at which freeze: they name nothing, and the
    answer is empty when nothing else is known."""
    slip_change = None
    for index in range(len(changes) - 1, -1, -1):
        if changes[index].to_status in SLIP_STATUSES:
            slip_change = index
            break
    if slip_change is None:
        return ""
    last_status = None
    for change in reversed(changes[: slip_change + 1]):
        if change.assumed:
            continue
        status = next((s for s in (change.from_status, change.to_status) if STATUS_FREEZE.get(s)), None)
        if status:
            last_status = status
            break
    passed = None
    if not changes[slip_change].assumed:
        moment = changes[slip_change].changed_at
        gone_by = [m for m in freezes if m.at <= moment]
        passed = _FREEZE_OF_KIND[gone_by[-1].kind] if gone_by else None
    freeze = freeze_missed(last_status=last_status, passed=passed, denied=denied)
    return freeze.label if freeze else ""


def kep_timeline(*, kep: Kep, now: datetime.datetime | None = None) -> KepTimeline:
    """Each release the KEP was tracked in (oldest first), its slips, when it reached each stage (as of `now`) and
    what kep.yaml plans beyond that."""
    now = now or timezone.now()
    tracked = list(
        TrackedEnhancement.objects.filter(kep=kep)
        .select_related("release", "sig")
        # The whole record (superseded rows too) in the same one query; the history as it stands is taken from it.
        .prefetch_related(
            Prefetch(
                "history",
                queryset=EnhancementStatusChange.all_objects.order_by("changed_at", "pk"),
                to_attr="record",
            ),
        )
        # The freeze of the last exception the release team refused it, in the same query.
        .annotate(
            refused_freeze=Subquery(
                EnhancementException.objects.filter(tracked_enhancement=OuterRef("pk"), decision__in=_REFUSED)
                .order_by("-requested_at", "-pk")
                .values("freeze")[:1]
            )
        )
        .order_by("release__major", "release__minor")
    )
    # Every tracked release's freezes (one query): the freeze a slip missed, and the enhancements freeze at which
    # the plan history is read beside the board.
    release_ids = [t.release_id for t in tracked]
    freezes_by_release: dict[int, list[Milestone]] = defaultdict(list)
    if release_ids:
        for milestone in Milestone.objects.filter(
            release_id__in=release_ids, kind__in=list(_FREEZE_OF_KIND), sig__isnull=True
        ).order_by("at"):
            freezes_by_release[milestone.release_id].append(milestone)
    timeline = KepTimeline()
    for row in tracked:
        entry = TimelineRow(tracked=row)
        by_pk = {change.pk: change for change in row.record}
        superseded = {change.supersedes_id for change in row.record if change.supersedes_id}
        history = [c for c in row.record if c.pk not in superseded and not c.withdrawn]
        entry.corrections = [(by_pk[c.supersedes_id], c) for c in row.record if c.supersedes_id in by_pk]
        if entry.slipped:
            timeline.slips += 1
            entry.missed_freeze = _missed_freeze(history, freezes_by_release[row.release_id], row.refused_freeze)
        entry.assumed = any(change.assumed for change in history)
        final = next((c for c in reversed(history) if c.to_status == row.status), None)
        if final is not None and not final.assumed:
            # Why it ended this way, as whoever changed it said (the admin's reason) and where to read more.
            entry.reason, entry.link = final.note, final.link
        entry.slips_so_far = timeline.slips
        entry.enhancements_freeze = next(
            (m for m in freezes_by_release[row.release_id] if m.kind == FREEZE_MILESTONE[Freeze.ENHANCEMENTS]), None
        )
        timeline.rows.append(entry)
    for stage, milestone in (
        (KepStage.ALPHA, kep.alpha_milestone),
        (KepStage.BETA, kep.beta_milestone),
        (KepStage.STABLE, kep.stable_milestone),
    ):
        # Reached: shipped at that stage (a done row, by hand, from the notes or synced), unless the release's own
        # release day is still ahead. kep.yaml's milestones are what its authors plan, and stay "planned" even for
        # a release that has shipped (the KEP may have been removed at code freeze, or never opted in).
        shipped = [
            r
            for r in tracked
            if r.target_stage == stage
            and r.status == EnhancementStatus.DONE
            and (r.release.release_date is None or release_day_passed(release_day=r.release.release_date, now=now))
        ]
        if shipped:
            source = "synced from GitHub" if shipped[0].is_synced else "tracking board"
            timeline.reached[stage] = (shipped[0].release.version, source)
        if milestone and timeline.reached.get(stage, ("",))[0] != milestone:
            timeline.planned[stage] = milestone
    return timeline


def kep_mentions(*, kep: Kep, limit: int = KEP_MENTIONS_SHOWN) -> tuple[list[AgendaItem], int]:
    """The newest `limit` agenda items that mention the KEP, and how many there are in all."""
    items = AgendaItem.objects.filter(keps=kep)
    shown = list(items.select_related("meeting__sig").order_by("-meeting__date", "order")[:limit])
    return shown, items.count()


# --- /keps/perma-beta/ ----------------------------------------------------------------------------------


@dataclass
class PermaBetaRow:
    kep: Kep
    stage: str
    since: str
    since_source: str
    releases: int
    slips: int = 0  # planned slips (kep.yaml history on master), for sorting by slips

    @property
    def feature_gates(self) -> list[FeatureGate]:
        """Filled in by `perma_beta_enrich()`."""
        return list(self.kep.feature_gates.all())

    @property
    def last_mention_url(self) -> str:
        if not getattr(self.kep, "last_mention_date", None):
            return ""
        return f"/meetings/{self.kep.last_mention_sig}/{self.kep.last_mention_date:%Y-%m-%d}/"


@dataclass
class PermaBetaResult:
    rows: list[PermaBetaRow]
    newest: str  # the newest release known ("" when none is)
    min_releases: int
    undated: int  # KEPs in the stage whose arrival in it is not known


def newest_release_version() -> str:
    """The newest release known: of the Release rows and of the KEPs' latest milestones."""
    versions = [v for v in Release.objects.order_by("-major", "-minor").values_list("version", flat=True)[:1]]
    versions += list(
        Kep.objects.exclude(latest_milestone="").order_by().values_list("latest_milestone", flat=True).distinct()
    )
    parsed = [p for p in (_version_or_none(v) for v in versions) if p]
    if not parsed:
        return ""
    major, minor = max(parsed)
    return f"{major}.{minor}"


def perma_beta_reference_version() -> str:
    """The release perma-betas are counted against: the current one (the active release, else the latest
    released). A release still being planned, or a KEP planning a stage for 1.40, must not make every beta
    look older than it is. Without any Release row, the newest release the KEPs name."""
    current = Release.objects.current()
    return current.version if current else newest_release_version()


def perma_beta_list(*, filters: dict | None = None) -> PermaBetaResult:
    """KEPs in beta (or alpha) for at least N releases (filter `min_releases`, default 3).

    A KEP that reached beta in 1.22 has been in beta for 3 releases at 1.25 (the current release):
    the count is the number of minor releases since it arrived in the stage. Arrival is the kep.yaml
    milestone for the stage, else the first release in which the tracking board shows it shipped at that
    stage. Feature gates take the stage of their KEP. KEPs that are closed (implemented, withdrawn, rejected,
    replaced) are not stuck anywhere and are left out, whatever stage their kep.yaml last named.
    """
    filters = filters or {}
    try:
        min_releases = max(1, int(filters.get("min_releases") or PERMA_BETA_DEFAULT_RELEASES))
    except (TypeError, ValueError):
        min_releases = PERMA_BETA_DEFAULT_RELEASES
    newest = perma_beta_reference_version()
    newest_parts = _version_or_none(newest)

    # Phase 1, on plain values: which KEPs qualify. Most KEPs in beta or alpha do not, so nothing heavier
    # than a few columns is read for them.
    candidates = PermaBetaFilterSet(
        filters,
        queryset=Kep.objects.filter(stage__in=[KepStage.BETA, KepStage.ALPHA])
        .exclude(status__in=CLOSED_KEP_STATUSES)
        .order_by(),
    ).qs.values_list("pk", "stage", "alpha_milestone", "beta_milestone")
    since_by_pk: dict[int, tuple[str, str]] = {}
    undated_pks = []
    for pk, stage, alpha, beta in candidates:
        since = beta if stage == KepStage.BETA else alpha
        if _version_or_none(since):
            since_by_pk[pk] = (since, "kep.yaml")
        else:
            undated_pks.append((pk, stage))
    if undated_pks:
        # Without a stage milestone: the first release whose board shows it shipped at that stage.
        stage_of = dict(undated_pks)
        shipped = (
            TrackedEnhancement.objects.filter(kep_id__in=list(stage_of), status=EnhancementStatus.DONE)
            .order_by("release__major", "release__minor")
            .values_list("kep_id", "target_stage", "release__version")
        )
        for kep_id, target_stage, version in shipped:
            if target_stage == stage_of[kep_id] and kep_id not in since_by_pk:
                since_by_pk[kep_id] = (version, "tracking board")
    undated = len(undated_pks) - sum(1 for pk, _ in undated_pks if pk in since_by_pk)
    qualifying: dict[int, tuple[str, str, int]] = {}
    for pk, (since, source) in since_by_pk.items():
        since_parts = _version_or_none(since)
        # Kubernetes has only had 1.x releases; across a major bump the minor count restarts, so count
        # the difference in minors when the majors match and skip the comparison otherwise.
        if not newest_parts or since_parts[0] != newest_parts[0]:
            continue
        releases = newest_parts[1] - since_parts[1]
        if releases >= min_releases:
            qualifying[pk] = (since, source, releases)
    if not newest_parts:
        undated = len(undated_pks) + len(since_by_pk)

    # Phase 2: the qualifying KEPs with the columns the list sorts on. What only the shown page needs
    # (authors, gates, latest mention) comes from perma_beta_enrich().
    from .selectors_history import plan_slip_count  # it builds on this module's version_parts

    keps = (
        Kep.objects.filter(pk__in=list(qualifying))
        .select_related("owning_sig")
        .only("number", "title", "stage", "owning_sig__slug")
        .annotate(plan_slips=plan_slip_count())
    )
    rows = [PermaBetaRow(kep, kep.stage, *qualifying[kep.pk], slips=kep.plan_slips) for kep in keps]
    rows.sort(key=lambda r: (-r.releases, r.kep.number))
    return PermaBetaResult(rows=rows, newest=newest, min_releases=min_releases, undated=undated)


def perma_beta_enrich(*, rows: list[PermaBetaRow]) -> None:
    """Add authors, feature gates and the latest meeting mention to the KEPs of `rows` (three queries)."""
    keps = [row.kep for row in rows]
    if not keps:
        return
    prefetch_related_objects(keps, "feature_gates", "authors")
    latest_item = AgendaItem.objects.filter(keps=OuterRef("pk")).order_by("-meeting__date", "-meeting_id")
    meeting_of = dict(
        Kep.objects.filter(pk__in=[k.pk for k in keps])
        .annotate(meeting_id=Subquery(latest_item.values("meeting_id")[:1]))
        .values_list("pk", "meeting_id")
    )
    meetings = (
        Meeting.objects.select_related("sig").only("date", "sig__slug").in_bulk(set(meeting_of.values()) - {None})
    )
    for kep in keps:
        meeting = meetings.get(meeting_of.get(kep.pk))
        kep.last_mention_date = meeting.date if meeting else None
        kep.last_mention_sig = meeting.sig.slug if meeting else ""


# --- /keps/feature-gates/ -------------------------------------------------------------------------------


def _stage_reached(stage: str) -> Subquery:
    """The first release in which the KEP shipped at `stage`: a tracked enhancement of it at that target stage
    marked done (by hand, by the notes importer or by the GitHub sync). kep.yaml's milestones are only plans."""
    # Not in a release whose release day (actual, else planned date) is still ahead, as `kep_timeline` has it.
    today = timezone.now().date()
    ahead = Q(release__actual_release_date__gt=today) | Q(
        release__actual_release_date__isnull=True, release__planned_release_date__gt=today
    )
    shipped = (
        TrackedEnhancement.objects.filter(kep=OuterRef("kep"), target_stage=stage, status=EnhancementStatus.DONE)
        .exclude(ahead)
        .order_by("release__major", "release__minor")
    )
    return Subquery(shipped.values("release__version")[:1])


def feature_gate_list() -> QuerySet[FeatureGate]:
    """Every feature gate with its KEP; `alpha_reached`, `beta_reached`, `stable_reached` annotate the release in
    which the KEP shipped at that stage (None where it has not), beside kep.yaml's planned milestones."""
    return (
        FeatureGate.objects.select_related("kep__owning_sig")
        .annotate(**{f"{stage}_reached": _stage_reached(stage) for stage in ("alpha", "beta", "stable")})
        .order_by("name", "kep__number")
    )


# --- /keps/approvers/ -----------------------------------------------------------------------------------


OTHER_TARGET_STAGES = ("deprecation", "removal", "deprecated", "removed", "unknown")


@dataclass
class ApproverLoad:
    person: Person
    role: str  # "approver" or "PRR approver"
    by_stage: dict[str, list[Kep]] = field(default_factory=lambda: defaultdict(list))

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


def approver_load(*, release: Release | None, sig=None) -> list[ApproverLoad]:
    """For each KEP approver and PRR approver, the KEPs tracked in `release` they hold, by target stage.

    A PRR approver holds a KEP when their approval is for the stage the KEP targets in this release;
    when the PRR file has no approval for that stage yet, the approver of its latest stage holds it.
    """
    if release is None:
        return []
    tracked = (
        TrackedEnhancement.objects.filter(release=release)
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
        load = loads.setdefault((person.pk, role), ApproverLoad(person=person, role=role))
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
