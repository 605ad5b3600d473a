"""What sigtracker knows of each upstream repository it refreshes from, and each refresh on record."""

from django.db import models
from django.urls import reverse

from .choices import RunOutcome, SourceStatus


class UpstreamSource(models.Model):
    """One upstream repository (`enhancements`, `sig-release`, `community`) and its cursor: the last commit whose
    changes were all imported. The cursor moves only when a run's imports succeeded (a file skipped as bad input
    does not hold it back; an exception, a database error or a time-out does)."""

    name = models.CharField(max_length=40, unique=True)
    url = models.CharField(max_length=2000, blank=True, help_text="The URL of the last run (settings name it).")
    last_commit = models.CharField(
        max_length=64, blank=True, help_text="The cursor: the last commit imported (empty before the first)."
    )
    last_commit_date = models.DateTimeField(null=True, blank=True, help_text="Committer date of that commit.")
    last_success_at = models.DateTimeField(
        null=True, blank=True, help_text="When a run last ended with the data current."
    )
    last_run_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=20, choices=SourceStatus.choices, default=SourceStatus.NEVER)
    error = models.TextField(blank=True, help_text="Why the last run failed (empty after a success).")

    class Meta:
        ordering = ["name"]
        permissions = [("refresh_upstreamsource", "Can refresh upstream sources now")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("admin:upstream_upstreamsource_change", args=[self.pk])


class UpstreamRun(models.Model):
    """One refresh of one source: what it read and wrote, how it ended. Kept as written (the admin is read-only)."""

    source = models.ForeignKey(UpstreamSource, on_delete=models.CASCADE, related_name="runs")
    started_at = models.DateTimeField()
    duration_seconds = models.FloatField(default=0)
    from_commit = models.CharField(max_length=64, blank=True)
    to_commit = models.CharField(max_length=64, blank=True)
    outcome = models.CharField(max_length=20, choices=RunOutcome.choices)
    full = models.BooleanField(default=False, help_text="Everything re-imported (first run, --full or a rewrite).")
    dry_run = models.BooleanField(default=False)
    files_read = models.PositiveIntegerField(default=0)
    created = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    skipped_reasons = models.JSONField(default=list, blank=True, help_text="One line per file or entry skipped.")
    imports = models.JSONField(default=list, blank=True, help_text="The imports run, with what each was given.")
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [models.Index(fields=["source", "-started_at"], name="upstream_run_source_started")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(duration_seconds__gte=0),
                name="upstream_run_duration_not_negative",
                violation_error_message="A run cannot take negative time.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.source.name} {self.started_at:%Y-%m-%d %H:%M} {self.outcome}"

    def get_absolute_url(self) -> str:
        return reverse("admin:upstream_upstreamrun_change", args=[self.pk])
