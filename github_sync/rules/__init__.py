"""The rules of GitHub's answers, stated once: what a KEP's tracking issue in kubernetes/enhancements says from its
labels and milestone (`github_issue`), and the Release Tracking Board's titles and field values in sigtracker's
words (`tracking_board`; its Status values are a release rule, `releases.rules.board_status`, named here too).

The release-cycle rules they build on (freezes, statuses, in play) are `releases.rules`.
"""

from releases.rules import board_labels_disagree, board_status

from .github_issue import (
    OPT_IN_LABEL,
    OPT_IN_LABEL_SINCE,
    SIG_LABEL_PREFIX,
    STAGE_LABEL_PREFIX,
    TRACKED_NO_LABEL,
    TRACKED_YES_LABEL,
    GitHubStatusChange,
    GitHubVerdict,
    github_issue_verdict,
    github_milestone_title,
    is_release_milestone,
    sig_from_label,
    stage_from_labels,
)
from .tracking_board import (
    BOARD_TITLES,
    board_column,
    board_exception_decision,
    board_exception_freeze,
    board_prr_status,
    board_sig,
    board_stage,
    board_type,
    is_release_board_title,
)

__all__ = [
    # github_issue
    "OPT_IN_LABEL",
    "OPT_IN_LABEL_SINCE",
    "SIG_LABEL_PREFIX",
    "STAGE_LABEL_PREFIX",
    "TRACKED_NO_LABEL",
    "TRACKED_YES_LABEL",
    "GitHubStatusChange",
    "GitHubVerdict",
    "github_issue_verdict",
    "github_milestone_title",
    "is_release_milestone",
    "sig_from_label",
    "stage_from_labels",
    # tracking_board
    "BOARD_TITLES",
    "board_column",
    "board_exception_decision",
    "board_exception_freeze",
    "board_prr_status",
    "board_sig",
    "board_stage",
    "board_type",
    "is_release_board_title",
    # named here, stated in releases.rules
    "board_labels_disagree",
    "board_status",
]
