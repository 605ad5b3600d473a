"""The early releases' features tracking sheets, row by row as published (`FeatureSheetRow`)."""

from django.db import models

from community.models import Sig

from ..choices import EnhancementType, TargetStage
from .release import Release
from .tracking import TrackedEnhancement


class FeatureSheetRow(models.Model):
    """One row of an early release's features tracking sheet (`features.csv`, 1.3-1.12), as published.

    Every row is kept here, the sheet being the only record of those releases. Each is also a tracked enhancement
    (`tracked_enhancement`, source "feature sheet"), so the board, stats and API show it like any other: of its
    KEP when it names its features / enhancements issue, else a KEP-less one by the row's name (`feature_name`).
    Only a row naming neither an issue nor a SIG has no tracked enhancement (a board row needs a SIG).
    """

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="feature_sheet_rows")
    position = models.PositiveSmallIntegerField(help_text="The row's place among the sheet's features.")
    line = models.PositiveIntegerField(help_text="Line of features.csv.")
    name = models.CharField(max_length=300)
    number = models.PositiveIntegerField(null=True, blank=True, help_text="Its features/enhancements issue.")
    stage = models.CharField(max_length=20, choices=TargetStage.choices, blank=True)
    type = models.CharField(max_length=20, choices=EnhancementType.choices, blank=True)
    sig = models.ForeignKey(Sig, on_delete=models.SET_NULL, null=True, blank=True, related_name="feature_sheet_rows")
    sig_text = models.CharField("SIG as written", max_length=100, blank=True)
    assignees = models.CharField(max_length=300, blank=True, help_text="GitHub handles, comma-separated.")
    issue_url = models.URLField(max_length=500, blank=True)
    docs_url = models.URLField(max_length=500, blank=True)
    status_text = models.CharField(max_length=50, blank=True)
    release_note = models.TextField(blank=True)
    tracked_enhancement = models.ForeignKey(
        TrackedEnhancement, on_delete=models.SET_NULL, null=True, blank=True, related_name="feature_sheet_rows"
    )

    class Meta:
        ordering = ["release__major", "release__minor", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "position"],
                name="featurerow_unique_position",
                violation_error_message="This place of the sheet is taken.",
            )
        ]

    def __str__(self):
        return f"{self.release.version} feature: {self.name}"

    def get_absolute_url(self):
        return self.release.get_absolute_url() + "#feature-sheet"
