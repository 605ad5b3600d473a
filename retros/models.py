"""SIG retrospectives of a release and their lines, action items included (`Retrospective`, `RetroItem`)."""

from django.conf import settings
from django.db import models

from community.models import Person, Sig
from releases.models import Release

from .choices import ActionStatus, RetroCategory, StatusSource

#: The longest line a person may type on the board (imported notes keep what they say).
MAX_ITEM_CHARS = 2000


class Retrospective(models.Model):
    """A SIG's retrospective of one release.

    `recorded_tracked` / `recorded_merged` keep a tally quoted in the notes for releases whose KEP
    lists are lost; they are never mixed with figures computed from tracked enhancements.
    """

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="retrospectives")
    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, related_name="retrospectives")
    date = models.DateField(null=True, blank=True)
    source_url = models.URLField(blank=True)
    summary = models.TextField(blank=True)
    recorded_tracked = models.PositiveIntegerField(null=True, blank=True)
    recorded_merged = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        db_table = "releases_retrospective"
        ordering = ["release__major", "release__minor", "sig__slug"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "sig"], name="retro_unique_release_sig", violation_error_message="One retro each."
            ),
            models.CheckConstraint(
                condition=models.Q(recorded_merged__isnull=True)
                | models.Q(recorded_tracked__isnull=True)
                | models.Q(recorded_merged__lte=models.F("recorded_tracked")),
                name="retro_merged_le_tracked",
                violation_error_message="More merged than tracked.",
            ),
            models.CheckConstraint(
                condition=models.Q(recorded_tracked__isnull=True, recorded_merged__isnull=True)
                | models.Q(recorded_tracked__isnull=False, recorded_merged__isnull=False),
                name="retro_tally_complete",
                violation_error_message="A recorded tally needs both tracked and merged.",
            ),
        ]

    def __str__(self):
        return f"{self.release.version} retro ({self.sig})"

    def get_absolute_url(self):
        return self.release.get_absolute_url() + "#retro"

    @property
    def has_recorded_tally(self) -> bool:
        return self.recorded_tracked is not None


class RetroItem(models.Model):
    """One line of a retro: went well, to improve, or an action item with owner and follow-through."""

    retrospective = models.ForeignKey(Retrospective, on_delete=models.CASCADE, related_name="items")
    category = models.CharField(max_length=20, choices=RetroCategory.choices)
    order = models.PositiveIntegerField(default=0)
    text = models.TextField()
    owner = models.ForeignKey(Person, on_delete=models.SET_NULL, null=True, blank=True, related_name="retro_items")
    status = models.CharField(max_length=20, choices=ActionStatus.choices, blank=True)
    due_release = models.ForeignKey(
        Release, on_delete=models.SET_NULL, null=True, blank=True, related_name="due_action_items"
    )
    #: Who typed it on the board (None: imported from notes or written in the admin).
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="retro_items"
    )
    created_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(null=True, blank=True)
    #: Hidden by a lead or curator: kept, with the reason, but shown nowhere public.
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_reason = models.CharField(max_length=300, blank=True)
    #: A duplicate merged into another item: its votes moved there; it is hidden.
    merged_into = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="duplicates")
    #: The board item an action item was made from.
    from_item = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="action_items")
    issue_url = models.URLField(max_length=300, blank=True)
    #: The linked issue's ETag at the last sync (conditional requests), and when it was last read.
    issue_etag = models.CharField(max_length=200, blank=True)
    issue_checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "releases_retroitem"
        ordering = ["retrospective", "category", "order", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(category__in=RetroCategory.values),
                name="retroitem_category_valid",
                violation_error_message="Unknown category.",
            ),
            models.CheckConstraint(
                condition=models.Q(category=RetroCategory.ACTION_ITEM, status__in=ActionStatus.values)
                | (~models.Q(category=RetroCategory.ACTION_ITEM) & models.Q(status="")),
                name="retroitem_status_only_for_actions",
                violation_error_message="Action items need a status; other items have none.",
            ),
        ]

    def __str__(self):
        return self.text[:80]

    @property
    def is_hidden(self) -> bool:
        return self.hidden_at is not None


class RetroVote(models.Model):
    """A +1 of one person on one board item (one each; merging keeps one per person)."""

    item = models.ForeignKey(RetroItem, on_delete=models.CASCADE, related_name="votes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="retro_votes")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "user"], name="retrovote_once_per_person", violation_error_message="One vote each."
            )
        ]

    def __str__(self):
        return f"+1 on {self.item_id} by {self.user_id}"


class ActionItemStatusChange(models.Model):
    """One change of an action item's status, append-only: who or what made it, when, and why."""

    item = models.ForeignKey(RetroItem, on_delete=models.CASCADE, related_name="status_changes")
    old_status = models.CharField(max_length=20, choices=ActionStatus.choices, blank=True)
    new_status = models.CharField(max_length=20, choices=ActionStatus.choices)
    at = models.DateTimeField()
    source = models.CharField(max_length=20, choices=StatusSource.choices)
    author = models.CharField(max_length=150, blank=True)
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["item", "at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(new_status__in=ActionStatus.values),
                name="actionstatuschange_status_valid",
                violation_error_message="Unknown status.",
            )
        ]

    def __str__(self):
        return f"{self.item_id}: {self.old_status or '—'} → {self.new_status}"
