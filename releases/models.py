import contextlib
import contextvars
import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import models
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from community.models import Person, Sig
from core.text import line_breaking_characters
from keps.models import VERSION_REGEX, Kep

from .choices import (
    ActionStatus,
    DocsStatus,
    EnhancementStatus,
    EnhancementType,
    ExceptionDecision,
    ExceptionSource,
    Freeze,
    HistorySource,
    MilestoneKind,
    PrrStatus,
    ReleaseRoleKind,
    ReleaseState,
    RetroCategory,
    StatsSource,
    TargetStage,
    TrackedSource,
)
from .rules import AT_RISK_STATUSES, FINAL_STATUSES, STATUS_FREEZE, current_release, is_done, parse_version


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
        exceptions = EnhancementException.objects.filter(release=OuterRef("pk")).order_by().values("release")
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


class StatusWriteRefused(Exception):
    """A tracked enhancement's stored status was changed outside `releases.services.tracking`, the one write
    path that keeps its history (and queues its stats). Admin forms, imports, syncs and the shell call it."""


#: Set while `releases.services.tracking` writes statuses; see `status_writer()`.
_STATUS_WRITER = contextvars.ContextVar("tracked_enhancement_status_writer", default=False)


@contextlib.contextmanager
def status_writer():
    """Allow status writes in this block. Only `releases.services.tracking` enters it."""
    token = _STATUS_WRITER.set(True)
    try:
        yield
    finally:
        _STATUS_WRITER.reset(token)


def _refuse_status_write(what: str) -> None:
    if not _STATUS_WRITER.get():
        raise StatusWriteRefused(
            f"{what}: a tracked enhancement's status changes only through releases.services.tracking, "
            "which keeps its history"
        )


class TrackedEnhancementQuerySet(models.QuerySet):
    def bulk_create(self, objs, *args, **kwargs):
        # New rows come with a status, and a status comes with its history: only the tracking service writes both.
        _refuse_status_write("bulk_create() of tracked enhancements")
        return super().bulk_create(objs, *args, **kwargs)

    def update(self, **kwargs):
        if "status" in kwargs:
            _refuse_status_write("QuerySet.update(status=…)")
        return super().update(**kwargs)

    def bulk_update(self, objs, fields, batch_size=None):
        if "status" in fields:
            _refuse_status_write("bulk_update(…, ['status'])")
        return super().bulk_update(objs, fields, batch_size=batch_size)


#: What pages, exports and feeds say beside a tracked enhancement with no KEP.
KEPLESS_NOTE = "(feature sheet, no KEP)"


class TrackedEnhancement(models.Model):
    """A KEP opted into a release, with its status on the release team's board; or, before KEPs, a feature of
    an early release's feature sheet that names no features/enhancements issue (`kep` empty, `feature_name` the
    sheet's name for it, source "feature sheet").

    A KEP-less row is an enhancement all the same: the release team tracked it, it shipped or left, and the merge
    rate, funnel, board and API count it. It is one table rather than a second model so that every figure keeps
    reading one set of rows; what only a KEP has (its catalogue page, a GitHub tracking issue, slips across
    releases) is absent on such a row, and syncs leave it alone. One row per release and KEP, or per release and
    feature name when there is no KEP; a row names one or the other.

    The status of a row is set only through `releases.services.tracking` (which writes the history row and
    queues the stats): creating a row (`save()` of a new one, `bulk_create()`), saving a changed status on a row
    read from the database, or `update()` / `bulk_update()` of `status`, raises `StatusWriteRefused` anywhere
    else, so no admin form, import, sync or shell session can set a status without its history.
    """

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="tracked_enhancements")
    kep = models.ForeignKey(
        Kep,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="tracked_enhancements",
        help_text="Empty for a feature of an early feature sheet that names no KEP.",
    )
    feature_name = models.CharField(
        max_length=300,
        blank=True,
        default="",
        db_default="",  # bulk COPY loaders (the synthetic demo data) name only the columns they know
        help_text="The feature sheet's name for a feature with no KEP.",
    )
    sig = models.ForeignKey(Sig, on_delete=models.PROTECT, related_name="tracked_enhancements")
    type = models.CharField(max_length=20, choices=EnhancementType.choices, blank=True)
    target_stage = models.CharField(max_length=20, choices=TargetStage.choices, blank=True)
    status = models.CharField(
        max_length=30, choices=EnhancementStatus.choices, default=EnhancementStatus.AT_RISK_ENHANCEMENTS
    )
    enhancements_contact = models.ForeignKey(
        Person, on_delete=models.SET_NULL, null=True, blank=True, related_name="contact_for"
    )
    assignee = models.ForeignKey(Person, on_delete=models.SET_NULL, null=True, blank=True, related_name="assigned")
    notes = models.TextField(blank=True)
    # The board's other columns (the enhancements handbook's tracking board). Exception
    # requests are rows of their own (`EnhancementException`): a KEP may ask for one per freeze.
    prr_status = models.CharField("PRR status", max_length=20, choices=PrrStatus.choices, default=PrrStatus.NOT_STARTED)
    prr_approver = models.ForeignKey(
        Person,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="prr_reviews",
        verbose_name="PRR approver",
    )
    docs_status = models.CharField(max_length=20, choices=DocsStatus.choices, default=DocsStatus.NONE)
    docs_pr_urls = models.TextField(
        "docs PRs", blank=True, help_text="kubernetes/website PR links, one per line (the placeholder PR first)."
    )
    feature_blog = models.BooleanField("feature blog", default=False, help_text="Opted in to a feature blog.")
    feature_blog_pr_url = models.URLField("feature blog PR", max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    source = models.CharField(
        max_length=20,
        choices=TrackedSource.choices,
        default=TrackedSource.ADMIN,
        help_text="Where this row came from: GitHub sync, meeting notes, a feature sheet, an exception file, admin.",
    )
    # Set by `sync_github`: the KEP's tracking issue whose milestone, labels and timeline this row mirrors.
    # On such a row GitHub owns status, stage and milestone membership; notes and contacts stay local.
    github_issue_number = models.PositiveIntegerField(null=True, blank=True, editable=False)
    github_issue_url = models.URLField(blank=True, editable=False)
    github_synced_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When a sync last changed this row."
    )
    # The board's Status as written there: kept verbatim, also when it maps to no status of ours.
    # db_default: bulk COPY loaders (the synthetic demo data) name only the columns they know.
    board_status = models.CharField(max_length=100, blank=True, default="", db_default="", editable=False)

    objects = TrackedEnhancementQuerySet.as_manager()

    class Meta:
        # KEP-less rows after the KEPs of their release, by name.
        ordering = ["release__major", "release__minor", models.F("kep__number").asc(nulls_last=True), "feature_name"]
        indexes = [models.Index(fields=["release", "status"], name="trackedenh_release_status_idx")]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "kep"],
                condition=models.Q(kep__isnull=False),
                name="trackedenh_unique_release_kep",
                violation_error_message="This KEP is already tracked in this release.",
            ),
            models.UniqueConstraint(
                fields=["release", "feature_name"],
                condition=models.Q(kep__isnull=True),
                name="trackedenh_unique_release_feature",
                violation_error_message="A feature of this name is already tracked in this release.",
            ),
            # Exactly one: a KEP's row is named by its KEP, so no second name can drift from it.
            models.CheckConstraint(
                condition=models.Q(kep__isnull=False, feature_name="")
                | (models.Q(kep__isnull=True) & ~models.Q(feature_name="")),
                name="trackedenh_names_kep_or_feature",
                violation_error_message="Name the KEP, or for a feature without one, the feature (not both).",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=EnhancementStatus.values),
                name="trackedenh_status_valid",
                violation_error_message="Unknown status.",
            ),
            models.CheckConstraint(
                condition=models.Q(type__in=[*EnhancementType.values, ""]),
                name="trackedenh_type_valid",
                violation_error_message="Unknown type.",
            ),
            models.CheckConstraint(
                condition=models.Q(target_stage__in=[*TargetStage.values, ""]),
                name="trackedenh_stage_valid",
                violation_error_message="Unknown target stage.",
            ),
            models.CheckConstraint(
                condition=models.Q(prr_status__in=PrrStatus.values),
                name="trackedenh_prr_status_valid",
                violation_error_message="Unknown PRR status.",
            ),
            models.CheckConstraint(
                condition=models.Q(docs_status__in=DocsStatus.values),
                name="trackedenh_docs_status_valid",
                violation_error_message="Unknown docs status.",
            ),
            models.CheckConstraint(
                condition=models.Q(source__in=TrackedSource.values),
                name="trackedenh_source_valid",
                violation_error_message="Unknown source.",
            ),
        ]

    def __str__(self):
        return f"{self.release.version} {self.subject}"

    @property
    def has_kep(self) -> bool:
        return self.kep_id is not None

    @property
    def subject(self) -> str:
        """What is tracked: "KEP-1287", or a KEP-less feature's name with where it comes from."""
        if self.kep_id is not None:
            return f"KEP-{self.kep.number}"
        return f"{self.feature_name} {KEPLESS_NOTE}"

    @property
    def title(self) -> str:
        """The KEP's title, or the KEP-less feature's name."""
        return self.kep.title if self.kep_id is not None else self.feature_name

    @property
    def display_name(self) -> str:
        """One line for lists, feeds and calendars: "KEP-1287 In-place resize", or `subject` without a KEP."""
        return f"{self.subject} {self.kep.title}" if self.kep_id is not None else self.subject

    def clean(self):
        lines = [line.strip() for line in self.docs_pr_urls.splitlines() if line.strip()]
        bad = [url for url in lines if not _is_url(url)]
        if bad:
            raise ValidationError({"docs_pr_urls": f"Not a link: {bad[0]!r}. Give one http(s) URL per line."})

    @property
    def docs_pr_link_list(self) -> list[str]:
        """The docs PR links, one per line of `docs_pr_urls` (http(s) only: pages make links of them)."""
        return [line.strip() for line in self.docs_pr_urls.splitlines() if _is_url(line.strip())]

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        # The status as stored, to tell a status write apart from other edits of the row in save().
        instance._stored_status = instance.__dict__.get("status")
        return instance

    def save(self, *args, **kwargs):
        stored = getattr(self, "_stored_status", None)
        update_fields = kwargs.get("update_fields")
        if self._state.adding:
            _refuse_status_write("save() of a new tracked enhancement")
        elif stored is not None and self.status != stored and (update_fields is None or "status" in update_fields):
            _refuse_status_write("save() of a changed status")
        super().save(*args, **kwargs)
        if stored is not None:
            self._stored_status = self.status

    def get_absolute_url(self):
        url = reverse("releases:enhancement_list", kwargs={"version": self.release.version})
        return url + "?" + urlencode({"q": self.kep.number if self.kep_id is not None else self.feature_name})

    @property
    def is_at_risk(self) -> bool:
        return self.status in AT_RISK_STATUSES

    @property
    def is_done(self) -> bool:
        return is_done(self.status)

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_STATUSES

    @property
    def freeze(self):
        return STATUS_FREEZE.get(self.status)

    @property
    def is_synced(self) -> bool:
        """Whether GitHub owns this row's status (a `sync_github` made or updated it)."""
        return bool(self.github_issue_url)


def _is_url(value: str) -> bool:
    try:
        URLValidator(schemes=["http", "https"])(value)
    except ValidationError:
        return False
    return True


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
        return [line.strip() for line in self.pull_request_urls.splitlines() if _is_url(line.strip())]

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


class CurrentHistoryManager(models.Manager):
    """The history as it now stands: without rows a correction superseded, and without the withdrawals
    themselves. Every page, stat and export of the board reads this; `all_objects` keeps the whole record."""

    def get_queryset(self):
        later = self.model.all_objects.filter(supersedes=models.OuterRef("pk"))
        return super().get_queryset().filter(withdrawn=False).exclude(models.Exists(later))


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


class ReleaseTeamMember(models.Model):
    """One person in one role of a release's team (release-team.md): the role's lead or one of its shadows.

    `role` is the kind of role (for rules: the enhancements lead signs reminders, its shadows are the cycle's
    enhancements contacts); `role_label` keeps the roster's own words ("Features", "Upgrade Testing / CI Signal").
    """

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="team_members")
    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="release_roles")
    role = models.CharField(max_length=20, choices=ReleaseRoleKind.choices)
    role_label = models.CharField(max_length=100)
    is_shadow = models.BooleanField(default=False)
    order = models.PositiveSmallIntegerField(default=0, help_text="The roster's order: row, then place in the row.")

    class Meta:
        ordering = ["release__major", "release__minor", "order", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(role__in=ReleaseRoleKind.values),
                name="teammember_role_valid",
                violation_error_message="Unknown role.",
            ),
            models.UniqueConstraint(
                fields=["release", "role_label", "person"],
                name="teammember_once_per_role",
                violation_error_message="This person already holds this role in this release.",
            ),
        ]

    def __str__(self):
        return f"{self.release.version} {self.role_label}{' shadow' if self.is_shadow else ''}: @{self.person.github}"

    def get_absolute_url(self):
        return self.release.get_absolute_url() + "#release-team"


class EnhancementStatusChange(models.Model):
    """One change of a tracked enhancement's status: the history that reproduces the board at any freeze.

    Append-only: a row is never updated or deleted. A correction (an actor GitHub renamed, an event it rewrote, a
    change the outside record no longer implies) is a new row that `supersedes` the old one; a change withdrawn
    with nothing in its place is a `withdrawn` row superseding it. `objects` reads the history as it now stands;
    `all_objects` the whole record, superseded rows included (the KEP timeline shows them struck through)."""

    tracked_enhancement = models.ForeignKey(TrackedEnhancement, on_delete=models.CASCADE, related_name="history")
    from_status = models.CharField(max_length=30, choices=EnhancementStatus.choices, blank=True)
    to_status = models.CharField(max_length=30, choices=EnhancementStatus.choices)
    changed_at = models.DateTimeField(default=timezone.now)
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    author = models.CharField(max_length=100, blank=True, help_text="Who made the change, when not a user here.")
    note = models.TextField(blank=True)
    source = models.CharField(max_length=20, choices=HistorySource.choices, blank=True, default="")
    link = models.URLField(max_length=500, blank=True, help_text="Where the change was made, e.g. the GitHub issue.")
    assumed = models.BooleanField(
        default=False,
        help_text="The instant is assumed (e.g. a fixture or notes import), not recorded when it happened.",
    )
    supersedes = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="superseded_by",
        help_text="The earlier row this one corrects (kept, shown as superseded).",
    )
    withdrawn = models.BooleanField(
        default=False,
        db_default=False,  # bulk COPY loaders (the synthetic demo data) name only the columns they know
        help_text="This row only withdraws the one it supersedes: its source no longer records that change.",
    )
    # A change nobody recorded an instant for, seen by a sync: it happened after this instant (the previous
    # sync that saw otherwise) and by `changed_at` (the sync that saw it).
    observed_since = models.DateTimeField(
        null=True, blank=True, help_text="Observed by a sync: the change happened between this and changed_at."
    )

    objects = CurrentHistoryManager()
    all_objects = models.Manager()

    class Meta:
        base_manager_name = "all_objects"
        ordering = ["tracked_enhancement", "changed_at", "pk"]
        indexes = [models.Index(fields=["tracked_enhancement", "changed_at"], name="statuschange_te_at_idx")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(to_status__in=EnhancementStatus.values),
                name="statuschange_to_valid",
                violation_error_message="Unknown status.",
            ),
            models.CheckConstraint(
                condition=models.Q(withdrawn=False) | models.Q(supersedes__isnull=False),
                name="statuschange_withdrawal_supersedes",
                violation_error_message="A withdrawal names the row it withdraws.",
            ),
        ]

    def __str__(self):
        return f"{self.tracked_enhancement}: {self.from_status or '∅'} → {self.to_status}"


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


class ReleaseStats(models.Model):
    """Computed (or recorded) figures for one release, for one SIG or (sig empty) all SIGs together."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="stats")
    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, null=True, blank=True, related_name="release_stats")
    source = models.CharField(max_length=20, choices=StatsSource.choices, default=StatsSource.TRACKED_ROWS)
    tracked = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    deferred = models.PositiveIntegerField(default=0)
    removed = models.PositiveIntegerField(default=0)
    merge_rate = models.FloatField(null=True, blank=True, help_text="done / tracked, 0..1.")
    merge_rate_change = models.FloatField(null=True, blank=True, help_text="Against the previous release.")
    recorded_tracked = models.PositiveIntegerField(
        null=True, blank=True, help_text="The retro's recorded tally of tracked KEPs, kept beside computed figures."
    )
    recorded_done = models.PositiveIntegerField(
        null=True, blank=True, help_text="The retro's recorded tally of merged KEPs."
    )
    # Where `tracked` and `done` come from, and what they may claim (`releases.rules.merge_figures`).
    tracked_source = models.CharField(
        max_length=20,
        choices=StatsSource.choices,
        default=StatsSource.TRACKED_ROWS,
        help_text="Tracked and done from the board's history, or from the retro's tally when the history covers less.",
    )
    not_recorded = models.PositiveIntegerField(
        default=0, help_text="KEPs whose standing at enhancements freeze the history does not record."
    )
    in_cycle = models.BooleanField(
        default=False, help_text="Computed before the release day: tracked and done so far, no merge rate."
    )
    counts = models.JSONField(default=dict, blank=True, help_text="Counts by status, type and stage.")
    funnel = models.JSONField(default=list, blank=True, help_text="Opted in → at each freeze → shipped.")
    slips = models.JSONField(default=list, blank=True, help_text="KEPs slipped in this release and how often.")
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["release__major", "release__minor", "sig__slug"]
        verbose_name_plural = "release stats"
        constraints = [
            models.UniqueConstraint(
                fields=["release", "sig"],
                condition=models.Q(sig__isnull=False),
                name="stats_unique_release_sig",
                violation_error_message="Stats exist for this release and SIG.",
            ),
            models.UniqueConstraint(
                fields=["release"],
                condition=models.Q(sig__isnull=True),
                name="stats_unique_release_all_sigs",
                violation_error_message="Stats exist for this release.",
            ),
            models.CheckConstraint(
                condition=models.Q(merge_rate__isnull=True) | models.Q(merge_rate__gte=0, merge_rate__lte=1),
                name="stats_merge_rate_range",
                violation_error_message="Merge rate must be within 0..1.",
            ),
            models.CheckConstraint(
                condition=models.Q(done__lte=models.F("tracked")),
                name="stats_done_le_tracked",
                violation_error_message="More done than tracked.",
            ),
            models.CheckConstraint(
                condition=models.Q(source__in=StatsSource.values),
                name="stats_source_valid",
                violation_error_message="Unknown source.",
            ),
            models.CheckConstraint(
                condition=models.Q(tracked_source__in=StatsSource.values),
                name="stats_tracked_source_valid",
                violation_error_message="Unknown source of the tracked figure.",
            ),
        ]

    def __str__(self):
        return f"{self.release.version} stats ({self.sig or 'all SIGs'})"


class GitHubCachedResponse(models.Model):
    """One page of a GitHub API answer as last received: its ETag and the (trimmed) body.

    The sync sends the ETag as `If-None-Match`; GitHub's `304` (free of rate limit) then means this body still
    holds, so an unchanged re-sync costs only 304s and rebuilds every issue from here.
    """

    url = models.CharField(max_length=1000, unique=True)
    resource = models.CharField(max_length=300, db_index=True, help_text="The URL's path, shared by its pages.")
    etag = models.CharField(max_length=200)
    body = models.JSONField(default=list)
    next_url = models.CharField(max_length=1000, blank=True)
    fetched_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["url"]
        verbose_name = "GitHub cached response"

    def __str__(self):
        return self.url
