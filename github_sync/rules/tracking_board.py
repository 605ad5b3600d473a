"""The Release Tracking Board (a GitHub ProjectV2): its titles and field values in sigtracker's words.

The board's columns are single-select fields whose option names each cycle's team retypes from the previous
board (tracking-board.md: "manually create fields with the same ... Option values"), so their spelling drifts:
"Tracked For Enhancement Freeze" (v1.29), "Tracked for enhancements freeze", "At Risk for Code Freeze",
"Removed From Milestone". A name is compared in a normal form (lower case, words only, "enhancement" and
"enhancements" alike: `releases.rules.board_words`); a value with no entry here maps to None and is reported, never
guessed. The Status column's values are a release rule (`releases.rules.board_status`).
"""

from releases.choices import ExceptionDecision, Freeze, PrrStatus, TargetStage
from releases.rules import board_words as _board_words

#: Board titles the release team has used for a release's board, `{version}` without the "v".
BOARD_TITLES = (
    "v{version} Enhancements Tracking",
    "{version} Enhancements Tracking",
    "Enhancements Tracking v{version}",
    "v{version} Enhancements Tracking Board",
    "{version} Enhancements Tracking Board",
    "v{version} Release Tracking",
)


def is_release_board_title(title: str, version: str) -> bool:
    """Whether a project titled `title` is the tracking board of release `version` (e.g. 1.36)."""
    normal = _board_words(title)
    return any(normal == _board_words(pattern.format(version=version)) for pattern in BOARD_TITLES)


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
