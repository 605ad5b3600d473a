"""The Release Tracking Board (a GitHub ProjectV2): its titles and field values in sigtracker's words.

The board's columns are single-select fields whose option names each cycle's team retypes from the previous
board (tracking-board.md: "manually create fields with the same ... Option values"), so their spelling drifts:
"Tracked For Enhancement Freeze" (v1.29), "Tracked for enhancements freeze", "At Risk for Code Freeze",
"Removed From Milestone". A name is compared in a normal form (lower case, words only, "enhancement" and
"enhancements" alike); a value with no entry here maps to None and is reported, never guessed.
"""

from releases.choices import EnhancementStatus, ExceptionDecision, Freeze, PrrStatus, TargetStage

from .statuses import AT_RISK_FOR, TRACKED_FOR, is_in_play

#: Board titles the release team has used for a release's board, `{version}` without the "v".
BOARD_TITLES = (
    "v{version} Enhancements Tracking",
    "{version} Enhancements Tracking",
    "Enhancements Tracking v{version}",
    "v{version} Enhancements Tracking Board",
    "{version} Enhancements Tracking Board",
    "v{version} Release Tracking",
)


def _board_words(value: str) -> str:
    words = "".join(ch if ch.isalnum() else " " for ch in (value or "").lower()).split()
    return " ".join("enhancements" if word == "enhancement" else word for word in words)


def is_release_board_title(title: str, version: str) -> bool:
    """Whether a project titled `title` is the tracking board of release `version` (e.g. 1.36)."""
    normal = _board_words(title)
    return any(normal == _board_words(pattern.format(version=version)) for pattern in BOARD_TITLES)


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
_BOARD_STATUS = {_board_words(name): status for name, status in _BOARD_STATUS.items()}

_BOARD_TYPE = {
    "net new": "net_new",
    "new": "net_new",
    "major change": "major_change",
    "graduating": "graduating",
    "deprecation": "deprecation",
    "removal": "removal",
    "docs": "docs",
}

_BOARD_STAGE = {name: name for name in TargetStage.values} | {"ga": TargetStage.STABLE, "deprecated": "deprecation"}

_BOARD_PRR = {
    "not started": PrrStatus.NOT_STARTED,
    "in review": PrrStatus.IN_REVIEW,
    "in progress": PrrStatus.IN_REVIEW,
    "approved": PrrStatus.APPROVED,
    "done": PrrStatus.APPROVED,
}


#: The board's column names as the enhancements handbook writes them (README.md, "Fields on the Exception
#: Requests view"; "Ensure the `SIG`, `Stage`, and `Enhancement Type` Fields ...") -> the short names sigtracker
#: reads them by, which earlier boards used.
_BOARD_COLUMNS = {
    "enhancement type": "type",
    "exception request link": "link",
    "exception request slack thread": "slack thread",
    "exception related prs": "related prs",
    "exception request date": "request date",
    "exception decision date": "decision date",
    "exception liaison": "liaison",
    "exception request notes": "notes",
}


def board_column(name: str) -> str:
    """The name sigtracker reads a board column by (lower case): the handbook's longer names map to the short
    ones ("Enhancement Type" -> "type", "Exception Request Date" -> "request date"); others as written."""
    key = " ".join((name or "").lower().split())
    return _BOARD_COLUMNS.get(key, key)


def board_status(value: str) -> str | None:
    """sigtracker's status for the board's Status `value`; None for a value it has no name for."""
    return _BOARD_STATUS.get(_board_words(value))


def board_type(value: str) -> str | None:
    return _BOARD_TYPE.get(_board_words(value))


def board_stage(value: str) -> str | None:
    return _BOARD_STAGE.get(_board_words(value))


def board_prr_status(value: str) -> str | None:
    return _BOARD_PRR.get(_board_words(value))


def board_sig(value: str) -> str:
    """The SIG slug of the board's SIG value, as `sig_from_label` gives it ("SIG Node", "sig-node", "node" ->
    "sig-node"); "" for no value."""
    words = _board_words(value).split()
    if words[:1] == ["sig"]:
        words = words[1:]
    return f"sig-{'-'.join(words)}" if words else ""


def board_labels_disagree(*, board: str, labels: str) -> bool:
    """Whether the board's status and the one the issue's labels and milestone imply tell different stories:
    one has the KEP in the release and the other not (tracked/no, or still in the milestone when the board
    removed it). Different freezes of a KEP in play are not a disagreement: labels cannot say which freeze."""
    return bool(board and labels) and is_in_play(board) != is_in_play(labels)


_BOARD_DECISION = {
    "in review": ExceptionDecision.PENDING,
    "pending": ExceptionDecision.PENDING,
    "approved": ExceptionDecision.APPROVED,
    "rejected": ExceptionDecision.REJECTED,
    "denied": ExceptionDecision.REJECTED,
}


def board_exception_freeze(value: str) -> str | None:
    """The freeze of the board's "Exception Request Type" ("Enhancements Freeze", "Code Freeze Exception", ...)."""
    words = set(_board_words(value).split())
    for freeze, names in (
        (Freeze.PRR, {"prr", "production"}),
        (Freeze.ENHANCEMENTS, {"enhancements"}),
        (Freeze.CODE, {"code"}),
        (Freeze.DOCS, {"docs", "documentation"}),
    ):
        if words & names:
            return freeze
    return None


def board_exception_decision(value: str) -> str | None:
    """The decision of the board's "Exception Status" (In Review, Approved, Rejected); None when unknown."""
    return _BOARD_DECISION.get(_board_words(value))
