from django.db import models


class ReleaseState(models.TextChoices):
    PLANNING = "planning", "Planning"
    ACTIVE = "active", "Active"
    RELEASED = "released", "Released"


class MilestoneKind(models.TextChoices):
    CYCLE_START = "cycle_start", "Release cycle begins"
    PRR_FREEZE = "prr_freeze", "Production readiness freeze"
    ENHANCEMENTS_FREEZE = "enhancements_freeze", "Enhancements freeze"
    SIG_SOFT_FREEZE = "sig_soft_freeze", "SIG soft freeze"
    FEATURE_BLOG_FREEZE = "feature_blog_freeze", "Feature blog freeze"
    CODE_FREEZE = "code_freeze", "Code freeze"
    TEST_FREEZE = "test_freeze", "Test freeze"
    DOCS_FREEZE = "docs_freeze", "Docs freeze / deadline"
    RELEASE = "release", "Release"
    RETROSPECTIVE = "retrospective", "Release retrospective"
    OTHER = "other", "Other"


class EnhancementType(models.TextChoices):
    """The release team's "type" column of the enhancements tracking board."""

    NET_NEW = "net_new", "Net new"
    MAJOR_CHANGE = "major_change", "Major change"
    GRADUATING = "graduating", "Graduating"
    DEPRECATION = "deprecation", "Deprecation"
    REMOVAL = "removal", "Removal"
    #: A docs-only entry; the board's Type column has offered it since v1.30 (the docs freeze).
    DOCS = "docs", "Docs"


class TargetStage(models.TextChoices):
    ALPHA = "alpha", "Alpha"
    BETA = "beta", "Beta"
    STABLE = "stable", "Stable"
    DEPRECATION = "deprecation", "Deprecation"
    REMOVAL = "removal", "Removal"


class Freeze(models.TextChoices):
    """The freezes a tracked/at-risk status refers to."""

    PRR = "prr", "PRR freeze"
    ENHANCEMENTS = "enhancements", "Enhancements freeze"
    CODE = "code", "Code freeze"
    DOCS = "docs", "Docs freeze"


class EnhancementStatus(models.TextChoices):
    """Statuses of the enhancements tracking board (sig-release role-handbooks/enhancements)."""

    AT_RISK_PRR = "at_risk_prr", "At risk for PRR freeze"
    TRACKED_PRR = "tracked_prr", "Tracked for PRR freeze"
    AT_RISK_ENHANCEMENTS = "at_risk_enhancements", "At risk for enhancements freeze"
    TRACKED_ENHANCEMENTS = "tracked_enhancements", "Tracked for enhancements freeze"
    AT_RISK_CODE = "at_risk_code", "At risk for code freeze"
    TRACKED_CODE = "tracked_code", "Tracked for code freeze"
    AT_RISK_DOCS = "at_risk_docs", "At risk for docs freeze"
    TRACKED_DOCS = "tracked_docs", "Tracked for docs freeze"
    EXCEPTION_PENDING = "exception_pending", "Exception pending"
    EXCEPTION_APPROVED = "exception_approved", "Exception approved"
    DEFERRED = "deferred", "Deferred (SIG's choice)"
    REMOVED = "removed_from_milestone", "Removed from milestone"
    DONE = "done", "Done (shipped)"


class StatsSource(models.TextChoices):
    TRACKED_ROWS = "tracked_rows", "Computed from tracked enhancements"
    RECORDED_TALLY = "recorded_tally", "Recorded retro tally"


class FigureScope(models.TextChoices):
    """What a figure covers (`releases.rules.figures`): the whole release (every SIG's outcome known) or one SIG."""

    RELEASE = "release", "Release-wide"
    SIG = "sig", "One SIG"


class FigureSource(models.TextChoices):
    """Where a figure comes from (`releases.rules.figures`), as the pages, the CSV and the API name it."""

    BOARD = "board", "the enhancements board"
    LABELS = "labels", "the tracking issues' labels"
    NOTES = "notes", "SIG meeting notes"
    EXCEPTION_FILE = "exception_file", "the exception file"
    FEATURE_SHEET = "feature_sheet", "the feature sheet"
    RETRO_TALLY = "retro_tally", "the retro tally"
    ADMIN = "admin", "typed in by a curator"


class HistorySource(models.TextChoices):
    """Where a status change of a tracked enhancement was made (history rows keep theirs)."""

    ADMIN = "admin", "Admin"
    IMPORT = "import", "Import"
    NOTES = "notes", "Meeting notes"
    FIXTURE = "fixture", "Fixture"
    GITHUB = "github", "GitHub"
    SHELL = "shell", "Shell"
    FEATURE_SHEET = "feature_sheet", "Feature sheet"
    EXCEPTION_FILE = "exception_file", "Exception file"
    BOARD = "board", "Tracking board"


class TrackedSource(models.TextChoices):
    """Where a tracked enhancement came from (the row, not each status change: see `HistorySource`)."""

    ADMIN = "admin", "Admin"
    SYNC = "sync", "GitHub sync"
    NOTES = "notes", "Meeting notes"
    FEATURE_SHEET = "feature_sheet", "Feature sheet"
    EXCEPTION_FILE = "exception_file", "Exception file"


class ExceptionSource(models.TextChoices):
    """Where an exception request was recorded: typed in, a release's exceptions.yaml, the project board."""

    ADMIN = "admin", "Admin"
    EXCEPTION_FILE = "exception_file", "Exception file"
    BOARD = "board", "Project board"


class ReleaseRoleKind(models.TextChoices):
    """The release team's roles (release-team.md); each cycle names them a little differently."""

    LEAD = "lead", "Release team lead"
    ENHANCEMENTS = "enhancements", "Enhancements"
    COMMUNICATIONS = "communications", "Communications"
    DOCS = "docs", "Docs"
    RELEASE_NOTES = "release_notes", "Release notes"
    SIGNAL = "signal", "CI / release signal"
    BUG_TRIAGE = "bug_triage", "Bug triage"
    BRANCH_MANAGER = "branch_manager", "Branch manager"
    OTHER = "other", "Other"


# -- the board's other columns (the enhancements handbook's tracking board) ----------------------------------------


class PrrStatus(models.TextChoices):
    """The board's "PRR Status" column: where the KEP's production readiness review stands for this release."""

    NOT_STARTED = "not_started", "Not started"
    IN_REVIEW = "in_review", "In review"
    APPROVED = "approved", "Approved"


class ExceptionDecision(models.TextChoices):
    """The board's "Exception Status": in review until the release team decides."""

    PENDING = "pending", "Pending"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    #: Approved, then taken out of the release again (exceptions.yaml's "removed" and "reverted", 2019-).
    REMOVED = "removed", "Removed"
    REVERTED = "reverted", "Reverted"


class DocsStatus(models.TextChoices):
    """Where the enhancement's docs PR in kubernetes/website stands (the release docs team's columns)."""

    NONE = "none", "No docs PR"
    PLACEHOLDER = "placeholder", "Placeholder PR"
    READY_FOR_REVIEW = "ready_for_review", "Ready for review"
    MERGED = "merged", "Merged"
