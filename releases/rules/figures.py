"""What a release's figures may claim.

One definition of "tracked at enhancements freeze" and of the merge rate (done ÷ tracked at that freeze),
read by the stats (headline, funnel, chart, CSV, API). A figure says where it comes from: the board's history,
or the tally a retro recorded when that history covers fewer KEPs; never a rate over a subset. Until its
release day a release has progress, not a merge rate, and a freeze still ahead has no count.
"""

import datetime
from dataclasses import dataclass

from releases.choices import EnhancementStatus, StatsSource

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


def figures_known(*, tracked: int, has_enhancements: bool, recorded_tracked: int | None, in_cycle: bool) -> bool:
    """Whether a release's figures say anything about it: they count something, some enhancement of it is listed
    here, a retro recorded its tally, or it is in its cycle (where "0 tracked so far" is progress). A shipped
    release with none of these has zeros that describe what was imported, not the release: it gets no figures
    (the sig-release READMEs of 1.8-1.27 give dates, never counts)."""
    return tracked > 0 or has_enhancements or recorded_tracked is not None or in_cycle


def outcome_not_recorded(*, status_counts: dict[str, int], in_cycle: bool, from_tally: bool) -> int:
    """How many of a release's listed enhancements have no recorded end once it is over: a row still tracked, at
    risk or with an approved exception after the release day was never marked done, deferred or removed (v1.35's
    rows known only from exceptions.yaml), so "done" counts none of them, rightly or not. In its cycle nothing has
    ended yet; with a retro's tally as the headline, the tally says how many merged."""
    if in_cycle or from_tally:
        return 0
    return sum(count for status, count in status_counts.items() if status not in FINAL_STATUSES)


def tracked_at_enhancements_freeze(*, status_then: str | None, status_now: str, recorded: bool) -> bool | None:
    """Whether a row counts as tracked at the enhancements freeze: its board status at the freeze instant was
    past that freeze's bar (`counts_as_tracked_at_freeze`), or it is done anyway (an exception). `recorded` says
    whether the history knows where the row stood then; when it does not (its history starts later, at an
    assumed instant, as a retro table imported from meeting notes does) and the row is not done: None."""
    if status_now == EnhancementStatus.DONE:
        return True
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


def merge_figures(
    *,
    tracked: int,
    done: int,
    not_recorded: int,
    recorded_tracked: int | None,
    recorded_done: int | None,
    shipped: bool,
) -> MergeFigures:
    """The headline from the history's counts (`tracked`, `done`, `not_recorded` as
    `tracked_at_enhancements_freeze` gives them) and a retro's recorded tally, if any.

    When the tally names more tracked KEPs than the history knows were tracked, the tally is the denominator (and
    its merged count the numerator): a rate over the history's subset would say 6 of 6 where the retro said 6 of
    23. Without a tally, a history with rows of unknown standing gives counts but no rate."""
    if recorded_tracked is not None and recorded_done is not None and recorded_tracked > tracked:
        rate = recorded_done / recorded_tracked if shipped else None
        return MergeFigures(
            recorded_tracked, recorded_done, rate, StatsSource.RECORDED_TALLY, not_recorded, not shipped
        )
    rate = done / tracked if shipped and tracked and not not_recorded else None
    return MergeFigures(tracked, done, rate, StatsSource.TRACKED_ROWS, not_recorded, not shipped)
