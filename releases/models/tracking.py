"""A release's tracked enhancements: the rows of the release team's board (`TrackedEnhancement`), KEPs and the
early feature sheets' KEP-less features alike."""

from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from community.models import Person, Sig
from keps.models import Kep

from ..choices import DocsStatus, EnhancementStatus, EnhancementType, PrrStatus, TargetStage, TrackedSource
from ..rules import AT_RISK_STATUSES, FINAL_STATUSES, STATUS_FREEZE, is_done
from .links import is_http_url
from .release import Release
from .status_writes import refuse_status_write

#: The order of a release's tracked enhancements: by KEP number, then KEP-less features (an early feature sheet's
#: rows) by name. NULL numbers sort last on PostgreSQL and first on SQLite, so the order reads the `kepless` flag
#: `in_board_order()` annotates rather than the NULL; as plain names it is an order django-tables2 recognises as
#: the KEP column's, so the table marks that column sorted.
BOARD_ORDER = ("kepless", "kep__number", "feature_name")


class TrackedEnhancementQuerySet(models.QuerySet):
    def in_board_order(self):
        """These rows in `BOARD_ORDER`, with the `kepless` flag it sorts by."""
        kepless = models.ExpressionWrapper(models.Q(kep__isnull=True), output_field=models.BooleanField())
        return self.annotate(kepless=kepless).order_by(*BOARD_ORDER)

    def bulk_create(self, objs, *args, **kwargs):
        # New rows come with a status, and a status comes with its history: only the tracking service writes both.
        refuse_status_write("bulk_create() of tracked enhancements")
        return super().bulk_create(objs, *args, **kwargs)

    def update(self, **kwargs):
        if "status" in kwargs:
            refuse_status_write("QuerySet.update(status=…)")
        return super().update(**kwargs)

    def bulk_update(self, objs, fields, batch_size=None):
        if "status" in fields:
            refuse_status_write("bulk_update(…, ['status'])")
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
        bad = [url for url in lines if not is_http_url(url)]
        if bad:
            raise ValidationError({"docs_pr_urls": f"Not a link: {bad[0]!r}. Give one http(s) URL per line."})

    @property
    def docs_pr_link_list(self) -> list[str]:
        """The docs PR links, one per line of `docs_pr_urls` (http(s) only: pages make links of them)."""
        return [line.strip() for line in self.docs_pr_urls.splitlines() if is_http_url(line.strip())]

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
            refuse_status_write("save() of a new tracked enhancement")
        elif stored is not None and self.status != stored and (update_fields is None or "status" in update_fields):
            refuse_status_write("save() of a changed status")
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
