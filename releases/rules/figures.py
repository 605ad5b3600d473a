"""What a release's figures may claim: **a figure says its scope and its source, and unknown is not zero.**

One definition of "tracked at enhancements freeze" and of the merge rate, read by the stats (headline, funnel,
chart, CSV, API, emails):

- Scope (`FigureScope`): a figure is release-wide or one SIG's. A release-wide figure is given only where every
  SIG's outcome is known, i.e. some of its figures come from a source that lists the whole release (the
  enhancements board, the tracking issues' labels, a feature sheet, rows a curator typed in). Where only SIG
  sources are recorded (one SIG's meeting notes or retro tally; an exception file, which lists only the KEPs
  that asked for more time) the release-wide tracked, done and merge rate are None, "recorded for N SIGs",
  and the per-SIG rows carry the figures.
- Source (`FigureSource`): board, labels, notes, exception file, feature sheet, retro tally (or typed in).
- Tracked at a freeze: only an enhancement recorded before it, past that freeze's bar; an exception request
  for the enhancements freeze means it was not tracked at it (it is counted only if it shipped anyway).
- Merge rate: done ÷ the enhancements tracked at the enhancements freeze whose outcome (done, deferred,
  removed) is recorded; None when none is, when the standing of some at the freeze is unknown, or before the
  release day (a release in its cycle has progress, not a merge rate, and a freeze still ahead has no count).
  Where a retro's tally names more tracked KEPs than the history, the tally is the figures (never a rate over a
  subset).

docs/figures.md states this for users.
"""

import datetime
from collections.abc import Iterable
from dataclasses import dataclass

from releases.choices import EnhancementStatus, FigureSource, StatsSource, TrackedSource

from .statuses import FINAL_STATUSES, counts_as_tracked_at_freeze
from .zones import UTC


def milestone_passed(at: datetime.datetime | None, *, now: datetime.datetime) -> bool:
    """Whether a milestone at `at` has come by `now`; an unknown instant has not."""
    return at is not None and at <= now


def release_day_instant(release_day: datetime.datetime | datetime.date | None) -> datetime.datetime | None:
    """A release day as an instant: its release milestone's, or a release date from 00:00 UTC (as the schedules'
    release milestones are kept)."""
    if release_day is not None and not isinstance(release_day, datetime.datetime):
        return datetime.datetime.combine(release_day, datetime.time(), tzinfo=UTC)
    return release_day


def release_day_passed(*, release_day: datetime.datetime | datetime.date | None, now: datetime.datetime) -> bool:
    """Whether a release has shipped by `now`, by its own release day (`release_day_instant`). A release without
    a known release day has not: its figures stay progress."""
    return milestone_passed(release_day_instant(release_day), now=now)


#: Sources that list a whole release's enhancements, every SIG's: figures from them may be release-wide.
RELEASE_WIDE_SOURCES = frozenset(
    {FigureSource.BOARD, FigureSource.LABELS, FigureSource.FEATURE_SHEET, FigureSource.ADMIN}
)


def figure_source_of_row(*, tracked_source: str, on_board: bool = False) -> str:
    """Where a tracked enhancement's figures come from (`FigureSource`), by the row's origin (`TrackedSource`):
    a synced row from the project board when the board sync wrote its history, else from the tracking issue's
    labels."""
    if tracked_source == TrackedSource.SYNC:
        return FigureSource.BOARD if on_board else FigureSource.LABELS
    return {
        TrackedSource.NOTES: FigureSource.NOTES,
        TrackedSource.FEATURE_SHEET: FigureSource.FEATURE_SHEET,
        TrackedSource.EXCEPTION_FILE: FigureSource.EXCEPTION_FILE,
    }.get(tracked_source, FigureSource.ADMIN)


def release_wide_known(*, sources: Iterable[str]) -> bool:
    """Whether a release's figures may be given release-wide: some of them come from a source that lists every
    SIG's enhancements (`RELEASE_WIDE_SOURCES`), or nothing at all is recorded (then `figures_known` says there
    are no figures, or, in its cycle, "0 tracked so far")."""
    sources = set(sources)
    return not sources or bool(sources & RELEASE_WIDE_SOURCES)


def sources_label(sources: Iterable[str]) -> str:
    """Where figures come from, in words: "the enhancements board", "SIG meeting notes and the retro tally"."""
    labels = [FigureSource(source).label for source in sources if source in FigureSource.values]
    if len(labels) <= 1:
        return "".join(labels)
    return ", ".join(labels[:-1]) + " and " + labels[-1]


def scope_label(*, sig: str | None, sigs_recorded: int | None = None, known: bool = True) -> str:
    """What a figure covers, in words: "sig-node", "release-wide", "recorded for 1 SIG"."""
    if sig:
        return sig
    if known:
        return "release-wide"
    return f"recorded for {sigs_recorded or 0} SIG{'' if sigs_recorded == 1 else 's'}"


def merge_rate(*, done: int, outcome_recorded: int) -> float | None:
    """done ÷ the tracked enhancements whose outcome is recorded; None when none is (unknown is not 0 %)."""
    return done / outcome_recorded if outcome_recorded else None


def figures_known(
    *, tracked: int | None, has_enhancements: bool, recorded_tracked: int | None, in_cycle: bool, sigs_recorded: int = 0
) -> bool:
    """Whether a release's figures say anything about it: they count something, some enhancement of it is listed
    here, a retro recorded its tally, some SIG's figures are recorded (`sigs_recorded`), or it is in its cycle
    (where "0 tracked so far" is progress). A shipped release with none of these has zeros that describe what was
    imported, not the release: it gets no figures (the sig-release READMEs of 1.8-1.27 give dates, never counts)."""
    return bool(tracked) or has_enhancements or bool(sigs_recorded) or recorded_tracked is not None or in_cycle


def outcome_not_recorded(*, status_counts: dict[str, int], in_cycle: bool, from_tally: bool) -> int:
    """How many of a release's listed enhancements have no recorded end once it is over: a row still tracked, at
    risk or with an approved exception after the release day was never marked done, deferred or removed (v1.35's
    rows known only from exceptions.yaml), so "done" counts none of them, rightly or not. In its cycle nothing has
    ended yet; with a retro's tally as the headline, the tally says how many merged."""
    if in_cycle or from_tally:
        return 0
    return sum(count for status, count in status_counts.items() if status not in FINAL_STATUSES)


def tracked_at_enhancements_freeze(
    *, status_then: str | None, status_now: str, recorded: bool, exception_requested: bool = False
) -> bool | None:
    """Whether a row counts as tracked at the enhancements freeze: its board status at the freeze instant was
    past that freeze's bar (`counts_as_tracked_at_freeze`), or it is done anyway (an exception). `recorded` says
    whether the history knows where the row stood then; when it does not (its history starts later, at an
    assumed instant, as a retro table imported from meeting notes does) and the row is not done: None. An
    exception request for the enhancements freeze says it missed that freeze: not tracked at it, whatever its
    history (v1.36's three requests, dated the freeze's own day)."""
    if status_now == EnhancementStatus.DONE:
        return True
    if exception_requested:
        return False
    if status_then is None and not recorded:
        return None
    return counts_as_tracked_at_freeze(status_then)


@dataclass(frozen=True)
class MergeFigures:
    """A release's (or one SIG's) headline figures and where they come from."""

    tracked: int
    done: int
    #: done ÷ tracked; None before the release day, with nothing tracked, or when the history covers only part
    #: of the release and no tally says how much.
    rate: float | None
    #: "tracked_rows" (the board's history) or "recorded_tally" (the retro's tally, the history covering less).
    source: str
    #: Rows whose standing at the enhancements freeze was not recorded (left out of `tracked`).
    not_recorded: int
    #: Before the release day: `tracked` and `done` are progress so far.
    in_cycle: bool
    #: How many enhancements the rate is over: tracked at the freeze with a recorded outcome (None: no rate).
    rate_over: int | None = None


def merge_figures(
    *,
    tracked: int,
    done: int,
    not_recorded: int,
    recorded_tracked: int | None,
    recorded_done: int | None,
    shipped: bool,
    outcome_recorded: int | None = None,
) -> MergeFigures:
    """The headline from the history's counts (`tracked`, `done`, `not_recorded` as
    `tracked_at_enhancements_freeze` gives them) and a retro's recorded tally, if any.

    When the tally names more tracked KEPs than the history knows were tracked, the tally is the denominator (and
    its merged count the numerator): a rate over the history's subset would say 6 of 6 where the retro said 6 of
    23. Without a tally, a history with rows of unknown standing gives counts but no rate, and the rate is over the
    tracked rows whose outcome is recorded (`outcome_recorded`, all of `tracked` when not given): rows never
    marked done, deferred or removed are no failures."""
    if recorded_tracked is not None and recorded_done is not None and recorded_tracked > tracked:
        rate = merge_rate(done=recorded_done, outcome_recorded=recorded_tracked) if shipped else None
        return MergeFigures(
            recorded_tracked,
            recorded_done,
            rate,
            StatsSource.RECORDED_TALLY,
            not_recorded,
            not shipped,
            recorded_tracked if rate is not None else None,
        )
    over = tracked if outcome_recorded is None else outcome_recorded
    rate = merge_rate(done=done, outcome_recorded=over) if shipped and not not_recorded else None
    return MergeFigures(
        tracked, done, rate, StatsSource.TRACKED_ROWS, not_recorded, not shipped, over if rate is not None else None
    )
