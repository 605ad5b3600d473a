"""The release-cycle rules, stated once.

Which milestones freeze something, which freeze of the enhancements board each of them checks, which board
status belongs to which freeze, what still counts as "in play", what a KEP must have by each freeze, and the
time zones the release team quotes deadlines in. Every page, stat, reminder, importer and the GitHub sync
import these names from here; no other module restates any of them (tests/releases/test_rules.py checks
that the consumers agree).

Sources: the release team's enhancements handbook (sig-release `release-team/role-handbooks/enhancements/`)
and the release schedules (sig-release `releases/release-1.xx/README.md`).
"""

import datetime
import zoneinfo

from .choices import EnhancementStatus, Freeze, MilestoneKind

# --- time zones the release team quotes -----------------------------------------------------------------

UTC = datetime.UTC
#: "PT", "PST", "PDT" and "Pacific" in the schedules: US Pacific time as the date has it.
PACIFIC = zoneinfo.ZoneInfo("America/Los_Angeles")
#: Anywhere on Earth: a deadline "AoE" has passed only once it has passed in the last time zone, UTC−12.
AOE = datetime.timezone(datetime.timedelta(hours=-12), "AoE")

# --- milestones -----------------------------------------------------------------------------------------

#: Kinds of milestone that freeze something: reminders go out before these, calendars mark them as freezes.
FREEZE_KINDS = (
    MilestoneKind.PRR_FREEZE,
    MilestoneKind.ENHANCEMENTS_FREEZE,
    MilestoneKind.SIG_SOFT_FREEZE,
    MilestoneKind.FEATURE_BLOG_FREEZE,
    MilestoneKind.CODE_FREEZE,
    MilestoneKind.TEST_FREEZE,
    MilestoneKind.DOCS_FREEZE,
)

#: Which freeze of the enhancements board a milestone checks: what "at risk" and "ready" mean on its day.
#: SIG Node's soft freeze is the SIG's own deadline ahead of code freeze; the feature-blog freeze falls
#: between enhancements and code freeze and asks nothing of the board beyond being tracked; test freeze
#: comes after code freeze, when the code must already be in.
MILESTONE_FREEZE = {
    MilestoneKind.PRR_FREEZE: Freeze.PRR,
    MilestoneKind.ENHANCEMENTS_FREEZE: Freeze.ENHANCEMENTS,
    MilestoneKind.SIG_SOFT_FREEZE: Freeze.CODE,
    MilestoneKind.FEATURE_BLOG_FREEZE: Freeze.ENHANCEMENTS,
    MilestoneKind.CODE_FREEZE: Freeze.CODE,
    MilestoneKind.TEST_FREEZE: Freeze.CODE,
    MilestoneKind.DOCS_FREEZE: Freeze.DOCS,
}

#: The milestone that closes each freeze of the board (the funnel's steps and "which freeze did it miss").
FREEZE_MILESTONE = {
    Freeze.PRR: MilestoneKind.PRR_FREEZE,
    Freeze.ENHANCEMENTS: MilestoneKind.ENHANCEMENTS_FREEZE,
    Freeze.CODE: MilestoneKind.CODE_FREEZE,
    Freeze.DOCS: MilestoneKind.DOCS_FREEZE,
}

#: What each kind of freeze asks of a KEP, in the enhancements handbook's words (one line per requirement).
REQUIREMENTS = {
    MilestoneKind.PRR_FREEZE: (
        "the production readiness questionnaire answered in the KEP",
        "a PRR approver named in keps/prod-readiness/<sig>/<number>.yaml",
    ),
    MilestoneKind.ENHANCEMENTS_FREEZE: (
        "the KEP merged as implementable, with stage and latest-milestone set in kep.yaml",
        "a test plan and graduation criteria in the KEP",
        "PRR approval for the target stage",
        "the tracking issue in the release milestone with the lead-opted-in label",
    ),
    MilestoneKind.SIG_SOFT_FREEZE: ("every code PR reviewed and ready to merge (the SIG's own deadline)",),
    MilestoneKind.FEATURE_BLOG_FREEZE: ("a placeholder PR for the feature blog opened in kubernetes/website",),
    MilestoneKind.CODE_FREEZE: ("every code PR merged into kubernetes/kubernetes (or an exception requested)",),
    MilestoneKind.TEST_FREEZE: ("every test change for the enhancement merged into kubernetes/kubernetes",),
    MilestoneKind.DOCS_FREEZE: ("the documentation PR reviewed, ready for review or merged into kubernetes/website",),
}

#: Where the release's timeline starts and ends (the funnel and the GitHub sync read these).
CYCLE_START_KIND = MilestoneKind.CYCLE_START
RELEASE_KIND = MilestoneKind.RELEASE

# --- the enhancements board -----------------------------------------------------------------------------

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


def freeze_of_milestone(kind: str) -> Freeze | None:
    """The board freeze a milestone of `kind` checks; None for milestones that freeze nothing."""
    return MILESTONE_FREEZE.get(kind)


def at_risk_statuses_for(kind: str | None) -> list[str]:
    """The statuses that count as "at risk" on the day of a milestone of `kind` (every at-risk status when
    the milestone checks no freeze of the board, or when there is no milestone)."""
    freeze = MILESTONE_FREEZE.get(kind) if kind else None
    return [AT_RISK_FOR[freeze]] if freeze else list(AT_RISK_STATUSES)


def is_in_play(status: str | None) -> bool:
    """Whether a row in `status` still counts for the release (on the board, not deferred or removed)."""
    return bool(status) and status not in OUT_OF_PLAY


def is_ready_for(status: str, freeze: Freeze | str, *, exception_window: bool = False) -> bool:
    """Whether a row in `status` already meets `freeze`.

    Done meets everything. A pending exception meets nothing yet; an approved one meets the freeze itself but
    not the close of its exception window (the work must have merged by then). A status for a later freeze
    meets every earlier one; an "at risk" status meets only the freezes before its own. Rows out of play
    need nothing.
    """
    if status == EnhancementStatus.DONE or status in OUT_OF_PLAY:
        return True
    if status == EnhancementStatus.EXCEPTION_PENDING:
        return False
    if status == EnhancementStatus.EXCEPTION_APPROVED:
        return not exception_window
    own = STATUS_FREEZE.get(status)
    if own is None:
        return True
    level, wanted = FREEZE_ORDER.index(own), FREEZE_ORDER.index(Freeze(freeze))
    return level > wanted if status in AT_RISK_STATUSES else level >= wanted
