from django.db import models


class RunOutcome(models.TextChoices):
    """How one refresh of one source ended."""

    CURRENT = "current", "nothing to change"
    IMPORTED = "imported", "imported"
    REWRITTEN = "rewritten", "history rewritten, re-imported in full"
    SKIPPED_FILES = "skipped", "imported, some files skipped"
    FAILED = "failed", "failed"
    BUSY = "busy", "another refresh was running"


class SourceStatus(models.TextChoices):
    """A source's state after its last run, as the API and the admin show it."""

    NEVER = "never", "never refreshed"
    OK = "ok", "current"
    SKIPPED_FILES = "skipped", "current, some files skipped"
    FAILED = "failed", "last refresh failed"
