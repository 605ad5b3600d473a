"""SIG retrospectives of a release and their lines, action items included (`Retrospective`, `RetroItem`)."""

from django.db import models

from community.models import Person, Sig
from releases.models import Release

from .choices import ActionStatus, RetroCategory


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
