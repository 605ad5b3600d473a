"""The enhancements board's statuses: which freeze each belongs to, what is in play, tracked or final, what a row
must have by each freeze, and the freeze a KEP that left the release missed."""

from releases.choices import EnhancementStatus, Freeze, PrrStatus

from .milestones import MILESTONE_FREEZE

#: The order of the board's freezes: a KEP tracked for a later freeze has met every earlier one.
FREEZE_ORDER = (Freeze.PRR, Freeze.ENHANCEMENTS, Freeze.CODE, Freeze.DOCS)

AT_RISK_FOR = {
    Freeze.PRR: EnhancementStatus.AT_RISK_PRR,
    Freeze.ENHANCEMENTS: EnhancementStatus.AT_RISK_ENHANCEMENTS,
    Freeze.CODE: EnhancementStatus.AT_RISK_CODE,
    Freeze.DOCS: EnhancementStatus.AT_RISK_DOCS,
}
TRACKED_FOR = {
    Freeze.PRR: EnhancementStatus.TRACKED_PRR,
    Freeze.ENHANCEMENTS: EnhancementStatus.TRACKED_ENHANCEMENTS,
    Freeze.CODE: EnhancementStatus.TRACKED_CODE,
    Freeze.DOCS: EnhancementStatus.TRACKED_DOCS,
}
#: Which freeze a board status refers to (exception and final statuses refer to none).
STATUS_FREEZE = {
    **{status: freeze for freeze, status in AT_RISK_FOR.items()},
    **{status: freeze for freeze, status in TRACKED_FOR.items()},
}
AT_RISK_STATUSES = tuple(AT_RISK_FOR.values())

#: A row that has left the release: the SIG deferred it, or it missed a requirement. Both count as a slip.
OUT_OF_PLAY = (EnhancementStatus.DEFERRED, EnhancementStatus.REMOVED)
SLIP_STATUSES = OUT_OF_PLAY
#: Statuses after which nothing more happens to a row in this release.
FINAL_STATUSES = (*OUT_OF_PLAY, EnhancementStatus.DONE)

#: Statuses that count as "tracked" at the enhancements freeze instant: on the board and past that freeze's
#: bar (tracked for it, or already at a later freeze, in an exception, or done). An "at risk for enhancements
#: freeze" row at the freeze instant has missed it: the release team removes it. The merge rate's denominator
#: (done ÷ tracked at the enhancements freeze) and the GitHub sync's "still tracked" read this.
TRACKED_STATUSES = (
    EnhancementStatus.TRACKED_ENHANCEMENTS,
    EnhancementStatus.AT_RISK_CODE,
    EnhancementStatus.TRACKED_CODE,
    EnhancementStatus.AT_RISK_DOCS,
    EnhancementStatus.TRACKED_DOCS,
    EnhancementStatus.EXCEPTION_PENDING,
    EnhancementStatus.EXCEPTION_APPROVED,
    EnhancementStatus.DONE,
)


def freeze_missed(
    *, last_status: str | None, passed: Freeze | str | None, denied: Freeze | str | None = None
) -> Freeze | None:
    """The freeze a KEP that left the release slipped at.

    From its last board status before it left: at risk for, or tracked for, a freeze is the freeze it was
    working towards (the board flips "tracked" to "removed" when a KEP fails the freeze it was tracked for).
    From the calendar: the latest freeze that had passed when it left. The later of the two, since a KEP is
    removed at or after the freeze it missed: one tracked for enhancements freeze and removed after code freeze
    missed code freeze. An exception the release team denied (or approved, then took back) for a freeze
    (`denied`) says which freeze it failed: v1.25's KEP-1287, denied a code freeze exception, missed code freeze
    though it left before the code freeze instant.
    """
    candidates = [FREEZE_ORDER.index(Freeze(denied))] if denied else []
    own = STATUS_FREEZE.get(last_status) if last_status else None
    if own is not None:
        candidates.append(FREEZE_ORDER.index(own))
    if passed:
        candidates.append(FREEZE_ORDER.index(Freeze(passed)))
    return FREEZE_ORDER[max(candidates)] if candidates else None


def at_risk_statuses_for(kind: str | None) -> list[str]:
    """The statuses that count as "at risk" on the day of a milestone of `kind` (every at-risk status when
    the milestone checks no freeze of the board, or when there is no milestone)."""
    freeze = MILESTONE_FREEZE.get(kind) if kind else None
    return [AT_RISK_FOR[freeze]] if freeze else list(AT_RISK_STATUSES)


def is_done(status: str | None) -> bool:
    """Whether a row in `status` shipped in the release (the merge rate's numerator)."""
    return status == EnhancementStatus.DONE


def is_in_play(status: str | None) -> bool:
    """Whether a row in `status` still counts for the release (on the board, not deferred or removed)."""
    return bool(status) and status not in OUT_OF_PLAY


def counts_as_tracked_at_freeze(status: str | None) -> bool:
    """Whether a row whose board status was `status` at the enhancements freeze instant counts as tracked for
    the release's merge rate (done ÷ tracked at that freeze). None (not on the board yet) does not."""
    return status in TRACKED_STATUSES


def prr_status(*, board_status: str, file_approver: str = "") -> str:
    """A KEP's PRR status for the release's target stage: the board's where it says something (an admin or a sync
    set it), else approved when the KEP's `keps/prod-readiness/<sig>/<number>.yaml` names an approver for that
    stage (`file_approver`, imported as a PRR approval), else not started."""
    if board_status and board_status != PrrStatus.NOT_STARTED:
        return board_status
    return PrrStatus.APPROVED if file_approver else PrrStatus.NOT_STARTED


def is_ready_for(status: str, freeze: Freeze | str, *, exception_window: bool = False, prr: str | None = None) -> bool:
    """Whether a row in `status` already meets `freeze`.

    Done meets everything. A pending exception meets nothing yet; an approved one meets the freeze itself but
    not the close of its exception window (the work must have merged by then). A status for a later freeze
    meets every earlier one; an "at risk" status meets only the freezes before its own. Rows out of play
    need nothing. With `prr` (the row's PRR status by `prr_status`), the PRR freeze asks of a KEP the release team
    has not checked yet (at risk for PRR or for enhancements freeze) what it asks in REQUIREMENTS: its PRR
    approved. Without `prr`, the board status alone decides.
    """
    if status == EnhancementStatus.DONE or status in OUT_OF_PLAY:
        return True
    if status == EnhancementStatus.EXCEPTION_PENDING:
        return False
    if status == EnhancementStatus.EXCEPTION_APPROVED:
        return not exception_window
    if (
        prr is not None
        and Freeze(freeze) == Freeze.PRR
        and status
        in (
            EnhancementStatus.AT_RISK_PRR,
            EnhancementStatus.AT_RISK_ENHANCEMENTS,
        )
    ):
        return prr == PrrStatus.APPROVED
    own = STATUS_FREEZE.get(status)
    if own is None:
        return True
    level, wanted = FREEZE_ORDER.index(own), FREEZE_ORDER.index(Freeze(freeze))
    return level > wanted if status in AT_RISK_STATUSES else level >= wanted
