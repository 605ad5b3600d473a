"""A KEP's history release by release, as its page shows it: tracked status, freezes met or missed, exceptions."""

import datetime
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import (
    OuterRef,
    Prefetch,
    Subquery,
)
from django.utils import timezone

from keps.choices import KepStage
from keps.models import Kep
from releases.choices import EnhancementStatus, ExceptionDecision, Freeze
from releases.models import (
    EnhancementException,
    EnhancementStatusChange,
    Milestone,
    Release,
    TrackedEnhancement,
)
from releases.rules import FREEZE_MILESTONE, SLIP_STATUSES, STATUS_FREEZE, freeze_missed, release_day_passed

_FREEZE_OF_KIND = {kind: freeze for freeze, kind in FREEZE_MILESTONE.items()}


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
    tracked = _tracked_with_record(kep)
    freezes_by_release = _freezes_by_release([t.release_id for t in tracked])
    timeline = KepTimeline()
    for row in tracked:
        entry = _timeline_row(row, freezes_by_release[row.release_id])
        if entry.slipped:
            timeline.slips += 1
        entry.slips_so_far = timeline.slips
        timeline.rows.append(entry)
    _reached_and_planned(timeline, kep=kep, tracked=tracked, now=now)
    return timeline


def _tracked_with_record(kep: Kep) -> list[TrackedEnhancement]:
    """The KEP's tracked rows, oldest release first, each with its whole history (`record`) and the freeze of the
    last exception refused it (`refused_freeze`), in two queries."""
    return list(
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


def _freezes_by_release(release_ids: list[int]) -> dict[int, list[Milestone]]:
    """Every tracked release's freezes (one query): the freeze a slip missed, and the enhancements freeze at which
    the plan history is read beside the board."""
    freezes_by_release: dict[int, list[Milestone]] = defaultdict(list)
    if release_ids:
        for milestone in Milestone.objects.filter(
            release_id__in=release_ids, kind__in=list(_FREEZE_OF_KIND), sig__isnull=True
        ).order_by("at"):
            freezes_by_release[milestone.release_id].append(milestone)
    return freezes_by_release


def _timeline_row(row: TrackedEnhancement, freezes: list[Milestone]) -> TimelineRow:
    """One release of the timeline, from the tracked row's record and its release's freezes."""
    entry = TimelineRow(tracked=row)
    by_pk = {change.pk: change for change in row.record}
    superseded = {change.supersedes_id for change in row.record if change.supersedes_id}
    history = [c for c in row.record if c.pk not in superseded and not c.withdrawn]
    entry.corrections = [(by_pk[c.supersedes_id], c) for c in row.record if c.supersedes_id in by_pk]
    if entry.slipped:
        entry.missed_freeze = _missed_freeze(history, freezes, row.refused_freeze)
    entry.assumed = any(change.assumed for change in history)
    final = next((c for c in reversed(history) if c.to_status == row.status), None)
    if final is not None and not final.assumed:
        # Why it ended this way, as whoever changed it said (the admin's reason) and where to read more.
        entry.reason, entry.link = final.note, final.link
    entry.enhancements_freeze = next((m for m in freezes if m.kind == FREEZE_MILESTONE[Freeze.ENHANCEMENTS]), None)
    return entry


def _reached_and_planned(
    timeline: KepTimeline, *, kep: Kep, tracked: list[TrackedEnhancement], now: datetime.datetime
) -> None:
    """Where each stage was reached (`timeline.reached`) and, where not reached there, planned (`timeline.planned`)."""
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
