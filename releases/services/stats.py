"""Merge-rate, funnel and slip statistics per release, for each SIG and for all SIGs together.

`release_stats_compute` is the only writer of `ReleaseStats`. It aggregates in the database: one grouped
query gives the counts and, through the status history, the funnel for every release asked for; the
rest (retro tallies, slips, the previous release's figures) are one query each, whatever the number of
releases. `release_stats_request` is what other writers call after changing tracked enhancements: it
queues one debounced recompute per release once their transaction commits.
"""

import datetime
import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable

from celery import current_app
from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.db.models import Case, Count, Exists, F, Min, OuterRef, Q, Subquery, Value, When
from django.db.models.fields import CharField, DateTimeField
from django.db.models.functions import Coalesce
from django.utils import timezone
from redis.exceptions import RedisError

from releases import metrics
from releases.choices import EnhancementStatus, Freeze, HistorySource, ReleaseState
from releases.models import (
    EnhancementException,
    EnhancementStatusChange,
    Milestone,
    Release,
    ReleaseStats,
    TrackedEnhancement,
)
from releases.rules import (
    FINAL_STATUSES,
    FREEZE_MILESTONE,
    OUT_OF_PLAY,
    RELEASE_KIND,
    figure_source_of_row,
    release_day_instant,
    release_day_passed,
    release_states,
    release_wide_known,
    tracked_at_enhancements_freeze,
)
from releases.services.stats_rows import (
    FREEZE_STEPS,
    FUNNEL_STEPS,
    empty_figures,
    stats_row_from_counts,
    stats_row_from_tally,
    without_release_wide_figures,
)

logger = logging.getLogger(__name__)


def status_at_expression(instant):
    """SQL for the status a tracked enhancement had at `instant`: an aware datetime, or the name of an
    annotation of the outer query holding one.

    The status at T is the `to_status` of the row's latest history entry with `changed_at <= T`; before its
    first entry the row was not on the board (NULL). A row with no history at all (written before history
    was kept, or by hand) is taken as it stands now from its `created_at` on, rather than dropped.
    """
    inner, outer = (OuterRef(instant), F(instant)) if isinstance(instant, str) else (instant, instant)
    history = EnhancementStatusChange.objects.filter(tracked_enhancement=OuterRef("pk"))
    latest = history.filter(changed_at__lte=inner).order_by("-changed_at", "-pk").values("to_status")[:1]
    # COALESCE evaluates the fallback (and its EXISTS) only for rows with no change up to T.
    return Coalesce(
        Subquery(latest),
        Case(When(Q(created_at__lte=outer) & ~Exists(history), then=F("status")), default=Value(None)),
        output_field=CharField(),
    )


def _first_change_assumed() -> Subquery:
    """Whether a tracked enhancement's first history row has an assumed instant (None without history)."""
    first = EnhancementStatusChange.objects.filter(tracked_enhancement=OuterRef("pk")).order_by("changed_at", "pk")
    return Subquery(first.values("assumed")[:1])


def _instant_by_release(kind: str, milestone_at: dict):
    """The freeze instant of each release as a CASE on release_id (literal values: no per-row look-up)."""
    whens = [When(release_id=rel, then=Value(at)) for (rel, k), at in milestone_at.items() if k == kind]
    return Case(*whens, default=Value(None), output_field=DateTimeField()) if whens else Value(None, DateTimeField())


@metrics.stats_timed
@transaction.atomic
def release_stats_compute(
    *, release_ids: Iterable[int] | None = None, now: datetime.datetime | None = None
) -> list[ReleaseStats]:
    """Recompute `ReleaseStats` for the given releases (every release when None) and return the new rows.

    Per release: one row for all SIGs together and one per SIG that tracked KEPs in it or recorded a tally
    at its retro. A release (or a SIG in it) with no tracked rows but a recorded retro tally gets
    `source="recorded_tally"` with the tally and no counts or funnel; no rows are ever made up. Where both
    exist, the computed row keeps the tally beside it (`recorded_tracked`, `recorded_done`) for the pages to
    show both. `tracked` is the merge rate's denominator, by `releases.rules.tracked_at_enhancements_freeze` and
    `releases.rules.merge_figures`: the rows tracked at the enhancements freeze instant plus those done anyway, or
    the retro's tally where the history covers fewer KEPs (`tracked_source` says which); the funnel's first step
    counts every row that opted in. As of `now` (default: the present): before a release's release day the rows
    say progress (`in_cycle`, no merge rate) and a freeze still ahead has no funnel count. The following
    release's `merge_rate_change` is refreshed too, since it is measured against these.
    """
    now = now or timezone.now()
    ordered = list(Release.objects.order_by("major", "minor").values_list("pk", flat=True))
    wanted = set(ordered) if release_ids is None else {int(pk) for pk in release_ids} & set(ordered)
    if not wanted:
        return []
    # Serialise concurrent recomputes of the same release: both delete then insert, and the unique
    # constraints on (release, sig) would otherwise make the second one fail.
    list(Release.objects.filter(pk__in=wanted).order_by("pk").select_for_update().values_list("pk", flat=True))
    position = {pk: i for i, pk in enumerate(ordered)}
    previous = {pk: ordered[position[pk] - 1] if position[pk] else None for pk in wanted}

    over = _over_without_dates(wanted, now=now)
    milestone_at = _funnel_instants(wanted)
    figures = _figures_by_release_and_sig(wanted, milestone_at)
    tallies = _retro_tallies(wanted)
    over |= _over_without_enhancements_freeze(wanted - over, milestone_at=milestone_at, tallies=tallies, now=now)
    slips = _slips(wanted)
    new_rows: list[ReleaseStats] = []
    for release_id in wanted:
        new_rows += _release_rows(
            release_id, figures=figures, tallies=tallies, milestone_at=milestone_at, slips=slips, now=now, over=over
        )
    for row in new_rows:
        row.computed_at = now
    rates = _set_merge_rate_change(new_rows, previous=previous, wanted=wanted)

    ReleaseStats.objects.filter(release_id__in=wanted).delete()
    ReleaseStats.objects.bulk_create(new_rows)
    _refresh_following_change(ordered=ordered, position=position, wanted=wanted, rates=rates)
    return new_rows


def _over_without_dates(wanted: set[int], *, now: datetime.datetime) -> set[int]:
    """Releases with no schedule date at all that are over all the same (v1.4, known from its features sheet, while
    v1.8 is released; v1.35, known from its exception requests): no release day to pass and no freeze instant,
    yet their figures are no longer progress."""
    return {
        release.pk
        for release, state in release_states(Release.objects.with_known_dates().order_by("major", "minor"), now=now)
        if state == ReleaseState.RELEASED
        and release.pk in wanted
        and release.cycle_start is None
        and release.release_date is None
        and release.last_milestone is None
    }


def _over_without_enhancements_freeze(candidates: set[int], *, milestone_at, tallies, now) -> set[int]:
    """Releases past their release day whose schedule dates no enhancements freeze and that no retro tallied
    (v1.3 and v1.4: their 2016 READMEs give a coding start and a release day, never a freeze; their features
    sheets list what shipped). No instant says what was tracked at the freeze, so, as for a release with no date at
    all, their rows are counted as they stand and they get no merge rate: 28 shipped of 28 listed is no 100 %."""
    enhancements_freeze = FREEZE_MILESTONE[Freeze.ENHANCEMENTS]
    tallied = {release_id for release_id, _sig in tallies}
    return {
        release_id
        for release_id in candidates
        if (release_id, enhancements_freeze) not in milestone_at
        and release_id not in tallied
        and release_day_passed(release_day=milestone_at.get((release_id, RELEASE_KIND)), now=now)
    }


def _funnel_instants(wanted: set[int]) -> dict[tuple[int, str], datetime.datetime]:
    """(release, milestone kind) -> the instant of the release's first milestone of each kind the funnel steps
    at; a release's own release day when its schedule has no release milestone (a release typed in by hand)."""
    milestone_at = {
        (row["release_id"], row["kind"]): row["first"]
        for row in Milestone.objects.filter(
            release_id__in=wanted, sig__isnull=True, kind__in=[kind for _, _, kind in FUNNEL_STEPS if kind]
        )
        .values("release_id", "kind")
        .annotate(first=Min("at"))
        .order_by()
    }
    for pk, actual, planned in Release.objects.filter(pk__in=wanted).values_list(
        "pk", "actual_release_date", "planned_release_date"
    ):
        if (pk, RELEASE_KIND) not in milestone_at and (actual or planned):
            milestone_at[(pk, RELEASE_KIND)] = release_day_instant(actual or planned)
    return milestone_at


def _figures_by_release_and_sig(wanted: set[int], milestone_at: dict) -> dict[tuple[int, int | None], dict]:
    """The counts of `empty_figures` per (release, SIG) and per (release, None) for all SIGs together, from one
    query grouping the tracked rows by what is counted, with each row's status at each freeze's instant."""
    figures: dict[tuple[int, int | None], dict] = defaultdict(empty_figures)
    instants = {f"{key}_at": _instant_by_release(kind, milestone_at) for key, kind in FREEZE_STEPS}
    at_freeze = {f"s_{key}": status_at_expression(f"{key}_at") for key, _ in FREEZE_STEPS}
    has_ef = {rel for (rel, kind) in milestone_at if kind == FREEZE_MILESTONE[Freeze.ENHANCEMENTS]}
    grouped = (
        TrackedEnhancement.objects.filter(release_id__in=wanted)
        .annotate(**instants)
        .annotate(**at_freeze)
        .annotate(has_history=Exists(EnhancementStatusChange.objects.filter(tracked_enhancement=OuterRef("pk"))))
        .annotate(first_assumed=_first_change_assumed())
        .annotate(
            ef_exception=Exists(
                EnhancementException.objects.filter(tracked_enhancement=OuterRef("pk"), freeze=Freeze.ENHANCEMENTS)
            ),
            on_board=Exists(
                EnhancementStatusChange.objects.filter(tracked_enhancement=OuterRef("pk"), source=HistorySource.BOARD)
            ),
        )
        .values(
            "release_id",
            "sig_id",
            "status",
            "type",
            "target_stage",
            "source",
            "has_history",
            "first_assumed",
            "ef_exception",
            "on_board",
            *at_freeze,
        )
        .annotate(n=Count("pk"))
        .order_by()
    )
    for group in grouped:
        # Merge rate = done ÷ tracked at the enhancements freeze instant, by the board as it stood
        # then. A row done although not tracked then (an exception) counts too, so the rate stays within 0..1.
        # Where the board's past is unknown (no enhancements freeze in the schedule, a row without history)
        # the row counts as it stands today, as before history was kept, unless it asked for an exception to
        # that freeze (it missed it).
        if (group["release_id"] not in has_ef or not group["has_history"]) and not group["ef_exception"]:
            at_ef = True
        else:
            at_ef = tracked_at_enhancements_freeze(
                status_then=group["s_enhancements_freeze"],
                status_now=group["status"],
                recorded=not group["first_assumed"],
                exception_requested=group["ef_exception"],
            )
        for key in ((group["release_id"], group["sig_id"]), (group["release_id"], None)):
            _count_group(figures[key], group, at_ef=at_ef, freeze_statuses=at_freeze)
    return figures


def _count_group(fig: dict, group: dict, *, at_ef: bool | None, freeze_statuses: Iterable[str]) -> None:
    """Add one group of `n` tracked rows to `fig`; `at_ef` says whether they were tracked at the enhancements
    freeze (None: not recorded), `freeze_statuses` names the group's status at each freeze (`s_<step>`)."""
    n = group["n"]
    fig["rows"] += n
    fig["sources"][figure_source_of_row(tracked_source=group["source"], on_board=group["on_board"])] += n
    if at_ef:
        fig["tracked"] += n
        if group["status"] in FINAL_STATUSES:
            fig["outcome_recorded"] += n
    elif at_ef is None:
        fig["not_recorded"] += n
    fig["status"][group["status"]] += n
    if group["type"]:
        fig["type"][group["type"]] += n
    if group["target_stage"]:
        fig["stage"][group["target_stage"]] += n
    if group["status"] == EnhancementStatus.DONE:
        fig["done"] += n
    elif group["status"] == EnhancementStatus.DEFERRED:
        fig["deferred"] += n
    elif group["status"] == EnhancementStatus.REMOVED:
        fig["removed"] += n
    for name in freeze_statuses:
        status = group[name]
        if status is not None and status not in OUT_OF_PLAY:
            fig["steps"][name[2:]] += n
        elif status is None and group["first_assumed"]:
            # Not on the board yet by a history whose first instant is assumed (a fixture, a retro
            # table): where the row stood then was never recorded, which is not "out".
            fig["unknown"][name[2:]] += n


#: Readers of the tallies retros recorded: `f(release_ids) -> {(release_id, sig_id): [tracked, merged]}`. The
#: retros app (above this one) registers its reader when it is ready; without it no tally is known.
recorded_tally_sources: list[Callable[[set[int]], dict[tuple[int, int | None], list[int]]]] = []


def register_recorded_tally_source(source: Callable[[set[int]], dict]) -> None:
    """Add a reader of recorded retro tallies (idempotent: an app's ready() may run twice in tests)."""
    if source not in recorded_tally_sources:
        recorded_tally_sources.append(source)


def _retro_tallies(wanted: set[int]) -> dict[tuple[int, int | None], list[int]]:
    """(release, SIG) -> [tracked, merged] as a retro recorded them."""
    tallies: dict[tuple[int, int | None], list[int]] = {}
    for source in recorded_tally_sources:
        tallies.update(source(wanted))
    return tallies


def _release_rows(release_id: int, *, figures, tallies, milestone_at, slips, now, over) -> list[ReleaseStats]:
    """One release's rows: one per SIG with tracked rows, one per SIG known only from its retro tally, and the row
    of all SIGs together (from the rows, else from the tallies, else empty)."""
    rows = []
    computed_sigs = {sig for (rel, sig) in figures if rel == release_id and sig is not None}
    tally_sigs = {sig for (rel, sig) in tallies if rel == release_id} - computed_sigs
    for sig_id in sorted(computed_sigs):
        # A retro tally recorded for the same release and SIG is kept beside the computed figures.
        tally = tallies.get((release_id, sig_id), (None, None))
        rows.append(
            stats_row_from_counts(
                release_id, sig_id, figures[(release_id, sig_id)], milestone_at, slips, now, tally, over=over
            )
        )
    for sig_id in sorted(tally_sigs):
        tracked, merged = tallies[(release_id, sig_id)]
        rows.append(stats_row_from_tally(release_id, sig_id, tracked, merged))
    # Release-wide figures only where a source lists every SIG's enhancements (`rules.release_wide_known`): one
    # SIG's notes, retro tallies and exception files do not; the per-SIG rows carry what they record.
    known = release_wide_known(sources=figures[(release_id, None)]["sources"] if computed_sigs else ())
    if computed_sigs:
        tally = (None, None)
        if all((release_id, sig) in tallies for sig in computed_sigs):
            # Every SIG with rows recorded a tally too: the sums compare like with like.
            every = computed_sigs | tally_sigs
            tally = (
                sum(tallies[(release_id, sig)][0] for sig in every),
                sum(tallies[(release_id, sig)][1] for sig in every),
            )
        rows.append(
            stats_row_from_counts(
                release_id, None, figures[(release_id, None)], milestone_at, slips, now, tally, over=over
            )
        )
    elif tally_sigs:
        tracked = sum(tallies[(release_id, sig)][0] for sig in tally_sigs)
        merged = sum(tallies[(release_id, sig)][1] for sig in tally_sigs)
        rows.append(stats_row_from_tally(release_id, None, tracked, merged))
    else:
        rows.append(stats_row_from_counts(release_id, None, empty_figures(), milestone_at, slips, now, over=over))
    if not known or (tally_sigs and not computed_sigs):
        rows[-1] = without_release_wide_figures(rows[-1], sigs_recorded=len(computed_sigs | tally_sigs))
    else:
        rows[-1].sigs_recorded = len(computed_sigs | tally_sigs)
    return rows


def _set_merge_rate_change(new_rows: list[ReleaseStats], *, previous: dict, wanted: set[int]) -> dict:
    """Set each new row's change against the previous release: its new figures if recomputed now, else its stored
    ones. Returns (release, SIG) -> merge rate, the new rows' and the stored previous ones'."""
    rates = {(row.release_id, row.sig_id): row.merge_rate for row in new_rows}
    stored_previous = set(previous.values()) - wanted - {None}
    for row in ReleaseStats.objects.filter(release_id__in=stored_previous).values("release_id", "sig_id", "merge_rate"):
        rates[(row["release_id"], row["sig_id"])] = row["merge_rate"]
    for row in new_rows:
        before = rates.get((previous[row.release_id], row.sig_id))
        row.merge_rate_change = row.merge_rate - before if row.merge_rate is not None and before is not None else None
    return rates


def _refresh_following_change(*, ordered: list[int], position: dict, wanted: set[int], rates: dict) -> None:
    """The release after each recomputed one (when not recomputed itself) measures its change against the new
    figures."""
    following = {ordered[position[pk] + 1]: pk for pk in wanted if position[pk] + 1 < len(ordered)}
    following = {nxt: pk for nxt, pk in following.items() if nxt not in wanted}
    if following:
        later = list(ReleaseStats.objects.filter(release_id__in=following))
        for row in later:
            before = rates.get((following[row.release_id], row.sig_id))
            row.merge_rate_change = (
                row.merge_rate - before if row.merge_rate is not None and before is not None else None
            )
        ReleaseStats.objects.bulk_update(later, ["merge_rate_change"])


def _slips(release_ids: set[int]) -> dict[int, list[dict]]:
    """Per release, the KEPs removed or deferred in it, with the earlier releases that tracked them and
    how many times each has slipped up to and including that release."""
    # A slip is a KEP's, followed across releases: a KEP-less feature that left its release counts in `removed`
    # and `deferred`, not here.
    slipped_keps = TrackedEnhancement.objects.filter(
        release_id__in=release_ids, status__in=OUT_OF_PLAY, kep__isnull=False
    ).values("kep_id")
    history = defaultdict(list)
    for row in (
        TrackedEnhancement.objects.filter(kep_id__in=Subquery(slipped_keps))
        .values("kep_id", "kep__number", "kep__title", "release_id", "release__version", "status", "sig_id")
        .order_by("kep__number", "release__major", "release__minor")
    ):
        history[row["kep_id"]].append(row)
    result: dict[int, list[dict]] = defaultdict(list)
    for rows in history.values():
        for index, row in enumerate(rows):
            if row["release_id"] not in release_ids or row["status"] not in OUT_OF_PLAY:
                continue
            upto = rows[: index + 1]
            result[row["release_id"]].append(
                {
                    "kep": row["kep__number"],
                    "title": row["kep__title"],
                    "status": row["status"],
                    "earlier_releases": [earlier["release__version"] for earlier in rows[:index]],
                    "times": sum(1 for earlier in upto if earlier["status"] in OUT_OF_PLAY),
                    "_sig": row["sig_id"],
                }
            )
    return result


# --- debounced recompute after writes -------------------------------------------------------------------

_local = threading.local()


class _Batch:
    """The releases already enqueued by the commit under way, so that each is enqueued once per transaction.

    Our own bookkeeping on Django's public `transaction.on_commit`: every request registers a callback with its own
    ids, and the callbacks a commit runs (one after another, in this thread) enqueue only what the earlier ones
    did not. A request whose savepoint or transaction rolled back loses its callback with its ids, as it should.
    Once a commit has run a callback the batch is spent: the next transaction starts another; a batch no callback
    ran for (everything rolled back) has enqueued nothing and serves the next transaction as it is.
    """

    def __init__(self):
        self.enqueued: set[int] = set()
        self.started = False

    def callback(self, ids: set[int]):
        def flush() -> None:
            self.started = True
            new = ids - self.enqueued
            if new:
                self.enqueued |= new
                _enqueue(new)

        return flush


def release_stats_request(*, release_ids: Iterable[int], using: str | None = None) -> None:
    """Ask for the stats of these releases to be recomputed once the current transaction commits.

    Calls within one transaction collapse into one job per release (a bulk import of 500 rows queues
    one job, not 500). Across transactions, a job already queued and not yet started absorbs later
    requests (a mark per release in the cache all processes share, with a short countdown), so a burst of
    single-row edits does too. The job clears the mark as it starts (`release_stats_compute_queued`).
    """
    ids = {int(pk) for pk in release_ids if pk is not None}
    if not ids:
        return
    connection = transaction.get_connection(using)
    if not connection.in_atomic_block:
        _enqueue(ids)
        return
    batches = _local.__dict__.setdefault("batches", {})
    batch = batches.get(connection.alias)
    if batch is None or batch.started:
        batch = batches[connection.alias] = _Batch()
    transaction.on_commit(batch.callback(ids), using=using, robust=True)


#: The cache every process sees (settings.CACHES): the debounce marks must be set by the web process and
#: cleared by the worker in one place, or the worker clears only its own copy.
PENDING_CACHE = "shared"
#: How long a mark outlives its job's countdown. A job normally starts within the countdown; if it has not
#: started by then (a backlog, a lost message), the next edit queues another: a duplicate recompute is
#: cheap, an edit left uncomputed until the nightly run is not.
PENDING_GRACE_SECONDS = 60
#: The queued recompute: a task of this app (`releases.tasks`) that calls this module, so it is looked up by name
#: in Celery's registry (routes and eager mode apply as to any task) instead of imported back.
STATS_TASK = "releases.tasks.compute_release_stats"


def pending_key(release_id: int) -> str:
    return f"stats-pending:{release_id}"


def release_stats_compute_queued(*, release_id: int) -> list[ReleaseStats]:
    """Run a recompute queued by `release_stats_request`.

    The release's mark is cleared before any data is read: a change committed from then on finds no mark and
    queues a job of its own, and one committed before is read by this run. No edit is left uncomputed.
    """
    _pending_clear(release_id)
    return release_stats_compute(release_ids=[release_id])


def _pending_mark(release_id: int, timeout: float) -> bool:
    """Mark a job as queued for this release; False if one is already queued and has not started.
    With the cache unreachable (Redis down) the answer is unknown: queue anyway, at worst a duplicate."""
    try:
        return caches[PENDING_CACHE].add(pending_key(release_id), 1, timeout=timeout)
    except RedisError:  # connection refused, timed out, ...
        logger.warning("stats debounce cache unreachable; queueing the recompute of release %s anyway", release_id)
        return True


def _pending_clear(release_id: int) -> None:
    try:
        caches[PENDING_CACHE].delete(pending_key(release_id))
    except RedisError:
        # The mark expires by itself after the countdown and grace period. Redis unreachable from here
        # mostly means unreachable from the web processes too, and then their requests queue anyway.
        logger.warning("stats debounce cache unreachable; could not clear the mark of release %s", release_id)


def _enqueue(release_ids: Iterable[int]) -> None:
    delay = getattr(settings, "SIGTRACKER_STATS_DEBOUNCE_SECONDS", 5)
    for release_id in sorted(release_ids):
        # A job for this release is queued and has not started: it will see these changes too.
        if not _pending_mark(release_id, timeout=delay + PENDING_GRACE_SECONDS):
            continue
        try:
            current_app.tasks[STATS_TASK].apply_async(args=[release_id], countdown=delay)
        except Exception:
            # The edit is committed; a broker outage must not turn it into an error page. The nightly
            # recompute catches up, and the next edit of this release tries again.
            _pending_clear(release_id)
            logger.exception("could not queue the stats recompute of release %s", release_id)
