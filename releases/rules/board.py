"""The Release Tracking Board's Status values in sigtracker's words, and when the board and the labels disagree.

The board's option names are compared in a normal form (`board_words`: lower case, words only, "enhancement" and
"enhancements" alike); a value with no entry here maps to None. The GitHub sync reads the rest of the board's
columns (`github_sync.rules.tracking_board`); the releases pages need only these.
"""

from releases.choices import EnhancementStatus

from .statuses import AT_RISK_FOR, TRACKED_FOR, is_in_play


def board_words(value: str) -> str:
    words = "".join(ch if ch.isalnum() else " " for ch in (value or "").lower()).split()
    return " ".join("enhancements" if word == "enhancement" else word for word in words)


_BOARD_STATUS = {
    **{f"at risk for {freeze.label.lower()}": status for freeze, status in AT_RISK_FOR.items()},
    **{f"tracked for {freeze.label.lower()}": status for freeze, status in TRACKED_FOR.items()},
    "at risk for production readiness freeze": EnhancementStatus.AT_RISK_PRR,
    "tracked for production readiness freeze": EnhancementStatus.TRACKED_PRR,
    "exception pending": EnhancementStatus.EXCEPTION_PENDING,
    "exception approved": EnhancementStatus.EXCEPTION_APPROVED,
    "deferred": EnhancementStatus.DEFERRED,
    "removed from milestone": EnhancementStatus.REMOVED,
    "removed from release": EnhancementStatus.REMOVED,
    "done": EnhancementStatus.DONE,
}
_BOARD_STATUS = {board_words(name): status for name, status in _BOARD_STATUS.items()}


def board_status(value: str) -> str | None:
    """sigtracker's status for the board's Status `value`; None for a value it has no name for."""
    return _BOARD_STATUS.get(board_words(value))


def board_labels_disagree(*, board: str, labels: str) -> bool:
    """Whether the board's status and the one the issue's labels and milestone imply tell different stories:
    one has the KEP in the release and the other not (tracked/no, or still in the milestone when the board
    removed it). Different freezes of a KEP in play are not a disagreement: labels cannot say which freeze."""
    return bool(board and labels) and is_in_play(board) != is_in_play(labels)
