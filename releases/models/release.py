"""A release and the dated points of its cycle: `Release` (with the queryset pages use to find the current one)
and its `Milestone`s."""

import datetime

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from community.models import Sig
from core.text import line_breaking_characters
from keps.models import VERSION_REGEX

from ..choices import MilestoneKind, ReleaseState
from ..rules import current_release, parse_version


class ReleaseQuerySet(models.QuerySet):
    def get_by_natural_key(self, version):
        return self.get(version=version)

    def released(self):
        return self.filter(state=ReleaseState.RELEASED)

    def with_known_dates(self):
        """Each release with its earliest and latest release-wide milestone (`first_milestone`, `last_milestone`)
        and exception request (`first_exception`, `last_exception`: requested, decided), which
        `releases.rules.release_state` reads when the schedule gives no cycle start or release day."""
        release_wide = models.Q(milestones__sig__isnull=True)
        # Subqueries, not a second join: milestones times exception requests would be a product per release.
        # The request model through its foreign key: its module imports this one, so this one cannot import it.
        exception_request = self.model.exception_requests.field.model
        exceptions = exception_request.objects.filter(release=OuterRef("pk")).order_by().values("release")
        return self.annotate(
            first_milestone=models.Min("milestones__at", filter=release_wide),
            last_milestone=models.Max("milestones__at", filter=release_wide),
            first_exception=Subquery(exceptions.annotate(day=models.Min("requested_at")).values("day")),
            last_exception=Subquery(
                exceptions.annotate(day=models.Max(Coalesce("decided_at", "requested_at"))).values("day")
            ),
        )

    def current_cycle(self, *, now=None):
        """`releases.rules.current_release` at `now` (default: now) over these releases, each with its state as of
        `now` set on it (not saved); None when there is no release."""
        now = now or timezone.now()
        answer = current_release(list(self.with_known_dates().order_by("major", "minor")), now=now)
        if answer is not None:
            answer.release.state = answer.state
        return answer

    def current(self, *, now=None):
        """The current release at `now` (see `current_cycle`): the one whose cycle contains it, else the latest
        released one, else the first planned one."""
        answer = self.current_cycle(now=now)
        return answer.release if answer else None


class Release(models.Model):
    """A Kubernetes minor release (1.24) and its cycle. Ordered numerically, so 1.9 < 1.10."""

    version = models.CharField(max_length=10, unique=True, help_text="Minor version, e.g. 1.24.")
    # Numeric parts of `version`, kept in step by save() so that ordering is numeric in every database.
    major = models.PositiveSmallIntegerField(editable=False)
    minor = models.PositiveSmallIntegerField(editable=False)
    name = models.CharField(max_length=100, blank=True, help_text="Release name, e.g. Stargazer.")
    cycle_start = models.DateField(null=True, blank=True)
    planned_release_date = models.DateField(null=True, blank=True)
    actual_release_date = models.DateField(null=True, blank=True)
    state = models.CharField(max_length=20, choices=ReleaseState.choices, default=ReleaseState.PLANNING)
    source_url = models.URLField(blank=True)
    # The release team's tracking board (a GitHub ProjectV2 of the kubernetes org): found by title on the first
    # board sync, or set with `sync_github --project N`, and remembered.
    board_project_number = models.PositiveIntegerField(
        "tracking board project number", null=True, blank=True, help_text="github.com/orgs/<org>/projects/<N>."
    )

    objects = ReleaseQuerySet.as_manager()

    class Meta:
        ordering = ["major", "minor"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(version__regex=VERSION_REGEX),
                name="release_version_format",
                violation_error_message="Version must look like 1.24.",
            ),
            models.UniqueConstraint(
                fields=["major", "minor"], name="release_major_minor_unique", violation_error_message="Exists."
            ),
            models.CheckConstraint(
                condition=models.Q(state__in=ReleaseState.values),
                name="release_state_valid",
                violation_error_message="Unknown state.",
            ),
            models.CheckConstraint(
                condition=models.Q(cycle_start__isnull=True)
                | models.Q(planned_release_date__isnull=True)
                | models.Q(cycle_start__lte=models.F("planned_release_date")),
                name="release_cycle_before_release",
                violation_error_message="The cycle must start before the planned release date.",
            ),
        ]

    def __str__(self):
        return f"v{self.version}" + (f" {self.name}" if self.name else "")

    def natural_key(self):
        return (self.version,)

    def clean(self):
        try:
            parse_version(self.version)
        except ValueError as exc:
            raise ValidationError({"version": str(exc)}) from exc

    def save(self, *args, **kwargs):
        self.major, self.minor = parse_version(self.version)
        self.version = f"{self.major}.{self.minor}"
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("releases:release_detail", kwargs={"version": self.version})

    @property
    def release_date(self):
        return self.actual_release_date or self.planned_release_date


class Milestone(models.Model):
    """A dated point of a release cycle: a freeze, a deadline, release day, a retro.

    `at` is an aware instant, stored in UTC. All-day milestones (a date with no time in the schedule)
    store midnight UTC of that date and set `all_day`.
    """

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="milestones")
    kind = models.CharField(max_length=30, choices=MilestoneKind.choices)
    sig = models.ForeignKey(
        Sig, on_delete=models.CASCADE, null=True, blank=True, related_name="milestones", help_text="For SIG freezes."
    )
    at = models.DateTimeField(help_text="UTC instant; for an all-day milestone, midnight UTC of that date.")
    all_day = models.BooleanField(default=False)
    label = models.CharField(max_length=200, blank=True)
    quoted_timezone = models.CharField(
        max_length=10, blank=True, help_text="How the schedule quotes the time: UTC, PT, AoE…"
    )
    exception_deadline = models.DateTimeField(
        null=True, blank=True, help_text="When the exception window after this freeze closes."
    )
    sends_reminders = models.BooleanField(default=True)
    source_text = models.CharField(max_length=500, blank=True, help_text="The schedule's wording, as imported.")

    class Meta:
        ordering = ["release__major", "release__minor", "at", "kind"]
        indexes = [models.Index(fields=["at"], name="milestone_at_idx")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=MilestoneKind.values),
                name="milestone_kind_valid",
                violation_error_message="Unknown milestone kind.",
            ),
            models.CheckConstraint(
                condition=models.Q(exception_deadline__isnull=True) | models.Q(exception_deadline__gt=models.F("at")),
                name="milestone_exception_after_freeze",
                violation_error_message="The exception window closes after the freeze.",
            ),
        ]

    def __str__(self):
        return f"{self.release.version} {self.label or self.get_kind_display()}"

    def get_absolute_url(self):
        return self.release.get_absolute_url() + f"#milestone-{self.pk}"

    def clean(self):
        # A label goes into email subjects, calendar summaries and one-line lists: a CR/LF in it broke every
        # reminder of its freeze. A check here, not a field validator, so no migration is needed.
        if found := line_breaking_characters(self.label):
            shown = ", ".join(dict.fromkeys(f"U+{ord(char):04X}" for char in found))
            raise ValidationError({"label": f"The label must be one line without control characters (found {shown})."})

    @property
    def date(self):
        return self.at.astimezone(datetime.UTC).date()
