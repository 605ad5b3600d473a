"""The release-cycle rules, stated once.

Which milestones freeze something, which freeze of the enhancements board each of them checks, which board
status belongs to which freeze, what still counts as "in play", what a KEP must have by each freeze, and the
time zones the release team quotes deadlines in. Every page, stat, reminder, importer and the GitHub sync
import these names from here; no other module restates any of them (tests/releases/test_rules.py checks
that the consumers agree).

One submodule per subject, each importing only those listed before it:

- `zones`: the time zones the release team quotes;
- `milestones`: which milestones freeze what, and what each freeze asks;
- `statuses`: the enhancements board's statuses, in play, ready, the freeze a slip missed;
- `figures`: what a release's figures (tracked, done, merge rate) may claim;
- `cycle`: where the release cycle stands (a release's state, the current release);
- `board`: the Release Tracking Board's Status values in sigtracker's words.

The rules of GitHub's answers (a tracking issue's labels and milestone, the board's other columns) live with the
GitHub sync (`github_sync.rules`).

The rules of planned releases (kep.yaml history) live with the KEPs (`keps.plans`) and are named here too.

Sources: the release team's enhancements handbook (sig-release `release-team/role-handbooks/enhancements/`)
and the release schedules (sig-release `releases/release-1.xx/README.md`).
"""

from core.versions import parse_version
from keps.plans import PLAN_STAGE_ORDER, plan_slip, planned_target, stage_milestone

from .board import board_labels_disagree, board_status, board_words
from .cycle import (
    TYPICAL_CYCLE,
    CurrentRelease,
    current_release,
    release_span,
    release_state,
    release_state_label,
    release_states,
)
from .cycle import _day as _day  # private; importable from here as when the rules were one module
from .figures import (
    RELEASE_WIDE_SOURCES,
    MergeFigures,
    figure_source_of_row,
    figures_known,
    merge_figures,
    merge_rate,
    milestone_passed,
    outcome_not_recorded,
    release_day_instant,
    release_day_passed,
    release_wide_known,
    scope_label,
    sources_label,
    tracked_at_enhancements_freeze,
)
from .milestones import (
    CYCLE_START_KIND,
    FREEZE_KINDS,
    FREEZE_MILESTONE,
    MILESTONE_FREEZE,
    RELEASE_KIND,
    REQUIREMENTS,
)
from .statuses import (
    AT_RISK_FOR,
    AT_RISK_STATUSES,
    FINAL_STATUSES,
    FREEZE_ORDER,
    OUT_OF_PLAY,
    SLIP_STATUSES,
    STATUS_FREEZE,
    TRACKED_FOR,
    TRACKED_STATUSES,
    at_risk_statuses_for,
    counts_as_tracked_at_freeze,
    freeze_missed,
    is_done,
    is_in_play,
    is_ready_for,
    prr_status,
)
from .zones import AOE, PACIFIC, UTC, end_of_day_pacific

__all__ = [
    # zones
    "AOE",
    "PACIFIC",
    "UTC",
    "end_of_day_pacific",
    # milestones
    "CYCLE_START_KIND",
    "FREEZE_KINDS",
    "FREEZE_MILESTONE",
    "MILESTONE_FREEZE",
    "RELEASE_KIND",
    "REQUIREMENTS",
    # statuses
    "AT_RISK_FOR",
    "AT_RISK_STATUSES",
    "FINAL_STATUSES",
    "FREEZE_ORDER",
    "OUT_OF_PLAY",
    "SLIP_STATUSES",
    "STATUS_FREEZE",
    "TRACKED_FOR",
    "TRACKED_STATUSES",
    "at_risk_statuses_for",
    "counts_as_tracked_at_freeze",
    "freeze_missed",
    "is_done",
    "is_in_play",
    "is_ready_for",
    "prr_status",
    # figures
    "MergeFigures",
    "figures_known",
    "RELEASE_WIDE_SOURCES",
    "figure_source_of_row",
    "merge_rate",
    "release_wide_known",
    "scope_label",
    "sources_label",
    "outcome_not_recorded",
    "merge_figures",
    "milestone_passed",
    "release_day_instant",
    "release_day_passed",
    "tracked_at_enhancements_freeze",
    # cycle
    "TYPICAL_CYCLE",
    "CurrentRelease",
    "current_release",
    "release_span",
    "release_state",
    "release_state_label",
    "release_states",
    # board
    "board_labels_disagree",
    "board_status",
    "board_words",
    # named here, stated elsewhere: versions (core.versions) and planned releases (keps.plans)
    "PLAN_STAGE_ORDER",
    "parse_version",
    "plan_slip",
    "planned_target",
    "stage_milestone",
]
