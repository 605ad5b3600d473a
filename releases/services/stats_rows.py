"""One `ReleaseStats` row from counts already made: the headline (`releases.rules.merge_figures`), the funnel and
the slips of a release or of one SIG in it, or a retro's recorded tally alone. No queries: `releases.services.stats`
counts in the database and writes what these build.
"""

import datetime
from collections import defaultdict

from releases.choices import FigureScope, FigureSource, Freeze, StatsSource
from releases.models import ReleaseStats
from releases.rules import (
    FREEZE_MILESTONE,
    RELEASE_KIND,
    MergeFigures,
    merge_figures,
    merge_rate,
    milestone_passed,
    release_day_passed,
)

#: The funnel's steps: (key, label, milestone kind giving its instant).
FUNNEL_STEPS = (
    ("opted_in", "Opted in", None),
    ("prr_freeze", "Still in at PRR freeze", FREEZE_MILESTONE[Freeze.PRR]),
    # The headline's denominator, by the same rule (`rules.tracked_at_enhancements_freeze`), not a second count.
    ("enhancements_freeze", "Tracked at enhancements freeze", FREEZE_MILESTONE[Freeze.ENHANCEMENTS]),
    ("code_freeze", "Still in at code freeze", FREEZE_MILESTONE[Freeze.CODE]),
    ("shipped", "Shipped", RELEASE_KIND),
)
FREEZE_STEPS = [(key, kind) for key, _, kind in FUNNEL_STEPS if key not in ("opted_in", "shipped")]
#: Freeze steps counted from the board's history at the freeze's instant. The enhancements freeze is not one of
#: them: without its date the headline counts rows as they stand, which `merge_figures` says.
_UNCOUNTED_WITHOUT_DATE = frozenset(kind for key, kind in FREEZE_STEPS if key != "enhancements_freeze")


def empty_figures() -> dict:
    """The counts of a release (or of one SIG in it) before any tracked row is added: rows, tracked at the
    enhancements freeze, not recorded then, done, deferred, removed; per status, type and target stage; and per
    freeze step, the rows still in (`steps`) or whose standing then was never recorded (`unknown`)."""
    return {
        "rows": 0,
        "tracked": 0,
        # Tracked at the enhancements freeze and marked done, deferred or removed: the merge rate's denominator.
        "outcome_recorded": 0,
        # FigureSource -> rows from it.
        "sources": defaultdict(int),
        "not_recorded": 0,
        "done": 0,
        "deferred": 0,
        "removed": 0,
        "status": defaultdict(int),
        "type": defaultdict(int),
        "stage": defaultdict(int),
        "steps": defaultdict(int),
        "unknown": defaultdict(int),
    }


def _sources(fig: dict, figures: MergeFigures | None = None) -> list[str]:
    """Where a row's figures come from, the headline's source first: the retro tally when it is the headline, then
    the tracked rows' sources, most rows first."""
    ordered = [source for source, _ in sorted(fig["sources"].items(), key=lambda item: (-item[1], item[0]))]
    if figures is not None and figures.source == StatsSource.RECORDED_TALLY:
        return [FigureSource.RETRO_TALLY, *ordered]
    return ordered


def _scope(sig_id) -> str:
    return FigureScope.RELEASE if sig_id is None else FigureScope.SIG


def without_release_wide_figures(row: ReleaseStats, *, sigs_recorded: int) -> ReleaseStats:
    """The release-wide row of a release whose figures are recorded for some SIGs only (`rules.figures`): no
    tracked, done or merge rate (unknown, not zero), "recorded for N SIGs"; counts and funnel stay, as what those
    SIGs recorded, and the per-SIG rows carry the figures."""
    row.release_wide_known = False
    row.sigs_recorded = sigs_recorded
    row.tracked = row.done = row.merge_rate = row.rate_over = None
    row.recorded_tracked = row.recorded_done = None
    return row


def stats_row_from_counts(
    release_id, sig_id, fig, milestone_at, slips, now, tally=(None, None), *, over=frozenset()
) -> ReleaseStats:
    """The row of a release (or of one SIG in it) computed from its tracked rows' counts (`fig`), with the retro's
    `tally` (tracked, merged) beside them."""
    shipped = release_day_passed(release_day=milestone_at.get((release_id, RELEASE_KIND)), now=now)
    if release_id in over:
        return _stats_of_undated_past(release_id, sig_id, fig, slips, tally)
    figures = merge_figures(
        tracked=fig["tracked"],
        done=fig["done"],
        not_recorded=fig["not_recorded"],
        recorded_tracked=tally[0],
        recorded_done=tally[1],
        shipped=shipped,
        outcome_recorded=fig["outcome_recorded"],
    )
    funnel = _funnel(release_id, fig, figures, milestone_at, now=now, shipped=shipped)
    return ReleaseStats(
        release_id=release_id,
        sig_id=sig_id,
        source=StatsSource.TRACKED_ROWS,
        tracked=figures.tracked,
        done=figures.done,
        recorded_tracked=tally[0],
        recorded_done=tally[1],
        tracked_source=figures.source,
        not_recorded=figures.not_recorded,
        in_cycle=figures.in_cycle,
        deferred=fig["deferred"],
        removed=fig["removed"],
        merge_rate=figures.rate,
        rate_over=figures.rate_over,
        scope=_scope(sig_id),
        figures_from=_sources(fig, figures),
        counts=_counts(fig),
        funnel=funnel if fig["rows"] else [],
        slips=_slips_of(slips, release_id, sig_id),
    )


def _funnel(release_id, fig: dict, figures: MergeFigures, milestone_at, *, now, shipped: bool) -> list[dict]:
    """The funnel's steps for `fig`: a count per step that has come, "ahead" for one still to come."""
    funnel = []
    for key, label, kind in FUNNEL_STEPS:
        at = milestone_at.get((release_id, kind)) if kind else None
        if kind in _UNCOUNTED_WITHOUT_DATE and at is None and shipped:
            # A shipped release whose schedule has no such freeze never had one (PRR freeze began with v1.21):
            # no row, rather than "0 still in" at a freeze that was never held.
            continue
        step = {"step": key, "label": label, "at": _iso(at)}
        if key == "opted_in":
            step["count"] = fig["rows"]
        elif key != "shipped" and not milestone_passed(at, now=now) and (at is not None or not shipped):
            # A freeze still ahead (or, before the release day, one with no date yet) has no count yet.
            step["count"], step["ahead"] = None, True
        elif key == "shipped" and not shipped:
            step["count"], step["ahead"] = None, True
        elif key == "shipped":
            step["count"] = figures.done
        elif key == "enhancements_freeze":
            step["count"] = figures.tracked
            if figures.source == StatsSource.RECORDED_TALLY:
                step["source"] = StatsSource.RECORDED_TALLY
            elif figures.not_recorded:
                step["unknown"] = figures.not_recorded
        else:
            step["count"] = fig["steps"][key]
            if fig["unknown"].get(key):
                step["unknown"] = fig["unknown"][key]
        if key == "shipped" and shipped and figures.source == StatsSource.RECORDED_TALLY:
            step["source"] = StatsSource.RECORDED_TALLY
        funnel.append(step)
    return funnel


def _counts(fig: dict) -> dict:
    return {
        "status": dict(sorted(fig["status"].items())),
        "type": dict(sorted(fig["type"].items())),
        "stage": dict(sorted(fig["stage"].items())),
        # The board history's own figures, shown beside a tally that is the headline (not a second headline).
        "history": {"tracked": fig["tracked"], "done": fig["done"], "not_recorded": fig["not_recorded"]},
    }


def _slips_of(slips: dict, release_id: int, sig_id: int | None) -> list[dict]:
    """The release's slips (`releases.services.stats._slips`), of one SIG's KEPs when `sig_id` is given."""
    return [_public(slip) for slip in slips.get(release_id, []) if sig_id is None or slip["_sig"] == sig_id]


def _public(slip: dict) -> dict:
    return {key: value for key, value in slip.items() if not key.startswith("_")}


def _stats_of_undated_past(release_id, sig_id, fig, slips, tally) -> ReleaseStats:
    """A release that is over with no date, or no enhancements freeze, recorded: its rows as they stand (a features
    sheet lists what shipped), no merge rate (no enhancements freeze instant says what was tracked then) and a
    funnel whose freezes are not recorded rather than "ahead" or 0."""
    funnel = [
        {"step": key, "label": label, "at": None, "count": None, "not_recorded": True}
        for key, label, _ in FUNNEL_STEPS
        if key not in ("opted_in", "shipped")
    ]
    funnel.insert(0, {"step": "opted_in", "label": FUNNEL_STEPS[0][1], "at": None, "count": fig["rows"]})
    funnel.append({"step": "shipped", "label": FUNNEL_STEPS[-1][1], "at": None, "count": fig["done"]})
    return ReleaseStats(
        release_id=release_id,
        sig_id=sig_id,
        source=StatsSource.TRACKED_ROWS,
        tracked=fig["tracked"],
        done=fig["done"],
        recorded_tracked=tally[0],
        recorded_done=tally[1],
        tracked_source=StatsSource.TRACKED_ROWS,
        not_recorded=fig["rows"],
        in_cycle=False,
        deferred=fig["deferred"],
        removed=fig["removed"],
        merge_rate=None,
        scope=_scope(sig_id),
        figures_from=_sources(fig),
        counts=_counts(fig) | {"freezes_undated": True},
        funnel=funnel if fig["rows"] else [],
        slips=_slips_of(slips, release_id, sig_id),
    )


def stats_row_from_tally(release_id, sig_id, tracked: int, merged: int) -> ReleaseStats:
    return ReleaseStats(
        release_id=release_id,
        sig_id=sig_id,
        source=StatsSource.RECORDED_TALLY,
        tracked_source=StatsSource.RECORDED_TALLY,
        tracked=tracked,
        done=merged,
        recorded_tracked=tracked,
        recorded_done=merged,
        merge_rate=merge_rate(done=merged, outcome_recorded=tracked),
        rate_over=tracked or None,
        scope=_scope(sig_id),
        figures_from=[FigureSource.RETRO_TALLY],
        counts={},
        funnel=[],
        slips=[],
    )


def _iso(at) -> str | None:
    return at.astimezone(datetime.UTC).isoformat() if at else None
