"""Exception requests: a release's requests for more time past one of its freezes (`EnhancementException`)."""

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from ..choices import ExceptionDecision, ExceptionSource, Freeze
from .links import is_http_url
from .release import Release
from .tracking import TrackedEnhancement


class EnhancementException(models.Model):
    """An exception request for one freeze of a release (the handbook's "Exception Requests" view): what it
    was about, when it was asked, where (the thread), the PRs, the release team's decision and when, and the
    deadline or additional time it grants.

    Usually the request of a tracked enhancement, whose board status follows it (exception pending / approved
    / removed from milestone) through the tracking service. A request about no KEP (a kubernetes/kubernetes
    issue or PR, which the exception files of 2019-2022 name) or about a KEP not in the catalogue yet has no
    tracked enhancement: it keeps its release, `kep_number` and `issue_url`. A KEP may ask several times for
    one freeze (asked, denied, asked again): each request is a row.

    How a request about no KEP counts: as a request of its release, by freeze and decision, like any other (the
    release page's "Exception requests" section and weekly numbers, `/api/v1/exception-requests/`, all read the
    requests by `release`, never through a tracked enhancement). It is not made a KEP-less tracked enhancement:
    a kubernetes/kubernetes issue or PR (a bug fix, a test, a dependency bump let in after code freeze) is not an
    enhancement the release team tracked, and counting it as one would add to the merge rate's denominator what
    was never on the board. KEP-less tracked enhancements are the early feature sheets' features only.

    `source` says where it was recorded; rows of the exception file (`source_key` their identity in it) are
    rewritten by each import of that file, rows typed in the admin or read from the board are not.
    """

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="exception_requests")
    tracked_enhancement = models.ForeignKey(
        TrackedEnhancement, on_delete=models.CASCADE, null=True, blank=True, related_name="exceptions"
    )
    kep_number = models.PositiveIntegerField(
        "KEP number", null=True, blank=True, help_text="The KEP asked about, kept when no tracked enhancement is."
    )
    title = models.CharField(max_length=300, blank=True, help_text="The request's name, as asked.")
    issue_url = models.URLField(
        "issue", max_length=500, blank=True, help_text="The issue asked about (a KEP or kubernetes/kubernetes)."
    )
    pull_request_urls = models.TextField("PRs", blank=True, help_text="The request's PR links, one per line.")
    additional_time = models.CharField(max_length=100, blank=True, help_text="The extra time asked or granted.")
    source = models.CharField(max_length=20, choices=ExceptionSource.choices, default=ExceptionSource.ADMIN)
    source_key = models.CharField(max_length=200, blank=True, editable=False)
    freeze = models.CharField(max_length=20, choices=Freeze.choices)
    requested_at = models.DateTimeField(default=timezone.now)
    thread_url = models.URLField(
        "thread", max_length=500, blank=True, help_text="The request's Google Groups or Slack thread."
    )
    decision = models.CharField(max_length=20, choices=ExceptionDecision.choices, default=ExceptionDecision.PENDING)
    decided_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(
        null=True, blank=True, help_text="When the work must be in: as requested, then as granted."
    )
    notes = models.TextField(blank=True)
    liaison = models.CharField(
        max_length=100,
        blank=True,
        default="",
        db_default="",  # bulk loaders name only the columns they know
        help_text="The release team member following the request (GitHub handle).",
    )

    class Meta:
        ordering = ["release__major", "release__minor", "requested_at", "pk"]
        verbose_name = "exception request"
        indexes = [models.Index(fields=["decision", "deadline"], name="exception_decision_dl_idx")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(freeze__in=Freeze.values),
                name="exception_freeze_valid",
                violation_error_message="Unknown freeze.",
            ),
            models.CheckConstraint(
                condition=models.Q(decision__in=ExceptionDecision.values),
                name="exception_decision_valid",
                violation_error_message="Unknown decision.",
            ),
            models.CheckConstraint(
                condition=models.Q(decision=ExceptionDecision.PENDING, decided_at__isnull=True)
                | (~models.Q(decision=ExceptionDecision.PENDING) & models.Q(decided_at__isnull=False)),
                name="exception_decided_at_with_decision",
                violation_error_message="A decided request has a decision date; a pending one has none.",
            ),
            models.CheckConstraint(
                condition=models.Q(deadline__isnull=True) | models.Q(deadline__gt=models.F("requested_at")),
                name="exception_deadline_after_request",
                violation_error_message="The deadline comes after the request.",
            ),
            models.CheckConstraint(
                condition=models.Q(tracked_enhancement__isnull=False)
                | models.Q(kep_number__isnull=False)
                | ~models.Q(issue_url=""),
                name="exception_names_its_subject",
                violation_error_message="Say what the request is about: a tracked enhancement, a KEP or an issue.",
            ),
            models.CheckConstraint(
                condition=models.Q(source__in=ExceptionSource.values),
                name="exception_source_valid",
                violation_error_message="Unknown source.",
            ),
            models.UniqueConstraint(
                fields=["release", "source", "source_key"],
                condition=~models.Q(source_key=""),
                name="exception_source_key_unique",
                violation_error_message="This request of the source is already recorded.",
            ),
        ]

    def __str__(self):
        decision = self.get_decision_display()
        return f"{self.release.version} {self.subject}: {self.get_freeze_display()} exception ({decision})"

    def get_absolute_url(self):
        return self.release.get_absolute_url() + f"#exception-{self.pk}"

    def save(self, *args, **kwargs):
        if self.tracked_enhancement_id and not self.release_id:
            self.release_id = self.tracked_enhancement.release_id
        super().save(*args, **kwargs)

    @property
    def subject(self) -> str:
        """What the request is about: "KEP-1186", a KEP-less feature's name, or the issue's link."""
        row = self.tracked_enhancement if self.tracked_enhancement_id else None
        number = self.kep_number or (row.kep.number if row is not None and row.kep_id else None)
        if number:
            return f"KEP-{number}"
        return self.issue_url or (row.feature_name if row is not None else "")

    @property
    def pull_request_list(self) -> list[str]:
        return [line.strip() for line in self.pull_request_urls.splitlines() if is_http_url(line.strip())]

    def clean(self):
        # Said at the field, before the constraints' form-wide messages.
        if self.decision == ExceptionDecision.PENDING and self.decided_at is not None:
            raise ValidationError({"decided_at": "A pending request has no decision date yet."})
        if self.decision != ExceptionDecision.PENDING and self.decided_at is None:
            raise ValidationError({"decided_at": "Say when the release team decided."})
        if self.deadline is not None and self.requested_at is not None and self.deadline <= self.requested_at:
            raise ValidationError({"deadline": "The deadline comes after the request."})
        if self.tracked_enhancement_id and self.release_id and self.tracked_enhancement.release_id != self.release_id:
            raise ValidationError({"tracked_enhancement": "The tracked enhancement is of another release."})
