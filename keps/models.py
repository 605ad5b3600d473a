from django.db import models
from django.urls import reverse

from community.models import Person, Sig
from core.managers import NaturalKeyManager

from .choices import CoverageStatus, KepStage, KepStatus, PrrStage

VERSION_REGEX = r"^[0-9]+\.[0-9]+$"


class Kep(models.Model):
    """A Kubernetes Enhancement Proposal, as described by its kep.yaml."""

    number = models.PositiveIntegerField(unique=True)
    title = models.CharField(max_length=300)
    slug = models.CharField(max_length=200, blank=True, help_text="Directory name, e.g. 2727-grpc-probe.")
    owning_sig = models.ForeignKey(Sig, on_delete=models.PROTECT, related_name="owned_keps")
    participating_sigs = models.ManyToManyField(Sig, blank=True, related_name="participating_keps")
    status = models.CharField(max_length=20, choices=KepStatus.choices, blank=True)
    stage = models.CharField(max_length=20, choices=KepStage.choices, blank=True)
    latest_milestone = models.CharField(max_length=10, blank=True, help_text="Release version, e.g. 1.27.")
    alpha_milestone = models.CharField(max_length=10, blank=True)
    beta_milestone = models.CharField(max_length=10, blank=True)
    stable_milestone = models.CharField(max_length=10, blank=True)
    deprecated_milestone = models.CharField(max_length=10, blank=True)
    authors = models.ManyToManyField(Person, blank=True, related_name="authored_keps")
    reviewers = models.ManyToManyField(Person, blank=True, related_name="reviewed_keps")
    approvers = models.ManyToManyField(Person, blank=True, related_name="approved_keps")
    creation_date = models.DateField(null=True, blank=True)
    last_updated = models.DateField(null=True, blank=True)
    disable_supported = models.BooleanField(null=True, blank=True)
    tracking_issue_url = models.URLField(blank=True)
    source_path = models.CharField(max_length=300, blank=True, help_text="kep.yaml this row was imported from.")
    is_stub = models.BooleanField(
        default=False,
        help_text="Made by sync_github from the tracking issue; import_keps replaces it with the kep.yaml.",
    )

    objects = NaturalKeyManager("number")

    class Meta:
        ordering = ["number"]
        verbose_name = "KEP"
        verbose_name_plural = "KEPs"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(number__gt=0), name="kep_number_positive", violation_error_message="KEP number > 0."
            ),
            *[
                models.CheckConstraint(
                    condition=models.Q(**{f"{field}": ""}) | models.Q(**{f"{field}__regex": VERSION_REGEX}),
                    name=f"kep_{field}_is_version",
                    violation_error_message=f"{field} must be a release version like 1.27.",
                )
                for field in ("latest_milestone", "alpha_milestone", "beta_milestone", "stable_milestone")
            ],
            models.CheckConstraint(
                condition=models.Q(status__in=[*KepStatus.values, ""]),
                name="kep_status_valid",
                violation_error_message="Unknown KEP status.",
            ),
            models.CheckConstraint(
                condition=models.Q(stage__in=[*KepStage.values, ""]),
                name="kep_stage_valid",
                violation_error_message="Unknown KEP stage.",
            ),
        ]

    def __str__(self):
        return f"KEP-{self.number}: {self.title}"

    def natural_key(self):
        return (self.number,)

    def get_absolute_url(self):
        return reverse("keps:kep_detail", kwargs={"number": self.number})

    @property
    def issue_url(self) -> str:
        return self.tracking_issue_url or f"https://github.com/kubernetes/enhancements/issues/{self.number}"


class FeatureGate(models.Model):
    """A feature gate introduced by a KEP, with the components that read it."""

    name = models.CharField(max_length=120)
    kep = models.ForeignKey(Kep, on_delete=models.CASCADE, related_name="feature_gates")
    components = models.JSONField(default=list, blank=True, help_text='e.g. ["kubelet", "kube-apiserver"]')

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["kep", "name"], name="featuregate_unique_per_kep", violation_error_message="Gate listed twice."
            )
        ]

    def __str__(self):
        return self.name


class PrrApproval(models.Model):
    """A production-readiness approval for one stage of a KEP (keps/prod-readiness/<sig>/<number>.yaml)."""

    kep = models.ForeignKey(Kep, on_delete=models.CASCADE, related_name="prr_approvals")
    stage = models.CharField(max_length=20, choices=PrrStage.choices)
    approver = models.ForeignKey(Person, on_delete=models.PROTECT, related_name="prr_approvals")

    class Meta:
        ordering = ["kep__number", "stage"]
        verbose_name = "PRR approval"
        constraints = [
            models.UniqueConstraint(
                fields=["kep", "stage"], name="prr_unique_stage", violation_error_message="One approver per stage."
            ),
            models.CheckConstraint(
                condition=models.Q(stage__in=PrrStage.values),
                name="prr_stage_valid",
                violation_error_message="Unknown PRR stage.",
            ),
        ]

    def __str__(self):
        return f"KEP-{self.kep.number} {self.stage}: {self.approver}"


class DesignGroup(models.Model):
    """Related KEPs across SIGs, tracked and explained together (a KEP may sit in several groups)."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    summary = models.TextField(blank=True)
    sigs = models.ManyToManyField(Sig, blank=True, related_name="design_groups")
    keps = models.ManyToManyField(Kep, blank=True, related_name="design_groups")
    coverage_status = models.CharField(max_length=20, choices=CoverageStatus.choices, default=CoverageStatus.PLANNED)

    objects = NaturalKeyManager("slug")

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(coverage_status__in=CoverageStatus.values),
                name="designgroup_coverage_valid",
                violation_error_message="Unknown coverage status.",
            )
        ]

    def __str__(self):
        return self.name

    def natural_key(self):
        return (self.slug,)

    def get_absolute_url(self):
        return reverse("keps:designgroup_detail", kwargs={"slug": self.slug})


class KepPlanChange(models.Model):
    """A change of a KEP's plan in its kep.yaml, as it reached kubernetes/enhancements' master (`import_keps
    --history`): the plan after the commit, and the release it slipped from when the change is a slip
    (`keps.plans.plan_slip`). Keyed by KEP number, not a foreign key: history covers KEPs whose kep.yaml is
    gone (withdrawn, renumbered) and is imported independently of the KEP rows. Git history starts in 2020."""

    kep_number = models.PositiveIntegerField(db_index=True)
    commit_sha = models.CharField(max_length=40)
    committed_at = models.DateTimeField(help_text="When the commit reached master (first-parent commit date).")
    position = models.PositiveIntegerField(
        default=0,
        help_text="The commit's place on master's first-parent chain: the order plans reached master in, which "
        "commit dates need not follow (0: imported before positions were kept).",
    )
    path = models.CharField(max_length=300, help_text="The kep.yaml that speaks for the KEP after this commit.")
    stage = models.CharField(max_length=20, choices=KepStage.choices, blank=True)
    status = models.CharField(max_length=20, choices=KepStatus.choices, blank=True)
    latest_milestone = models.CharField(max_length=10, blank=True)
    milestones = models.JSONField(default=dict, blank=True, help_text='The milestone map, e.g. {"alpha": "1.27"}.')
    target_milestone = models.CharField(
        max_length=10, blank=True, help_text="The release planned for the current stage (releases.rules)."
    )
    slipped_from = models.CharField(max_length=10, blank=True, help_text="Set when this change is a slip.")

    class Meta:
        ordering = ["kep_number", "position", "committed_at", "pk"]
        verbose_name = "KEP plan change"
        constraints = [
            models.UniqueConstraint(
                fields=["kep_number", "commit_sha"],
                name="kepplanchange_one_per_commit",
                violation_error_message="One plan change per KEP and commit.",
            ),
        ]
        indexes = [
            models.Index(fields=["kep_number", "committed_at"], name="kepplanchange_kep_time"),
            models.Index(fields=["kep_number", "position"], name="kepplanchange_kep_position"),
        ]

    def __str__(self):
        return f"KEP-{self.kep_number} at {self.commit_sha[:12]}: {self.stage or '?'} {self.target_milestone or '?'}"

    def get_absolute_url(self):
        return reverse("keps:kep_detail", kwargs={"number": self.kep_number})

    @property
    def commit_url(self) -> str:
        return f"https://github.com/kubernetes/enhancements/commit/{self.commit_sha}"


class KepHistoryCursor(models.Model):
    """Where `import_keps --history` stopped on a branch: the last commit read and the replay's state, so a
    re-run reads only the commits after it."""

    branch = models.CharField(max_length=100, unique=True, default="master")
    last_commit = models.CharField(max_length=40)
    last_committed_at = models.DateTimeField()
    #: The replay's state (`ReplayState.to_bytes`: compressed JSON), written on every run.
    state = models.BinaryField(default=bytes)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["branch"]

    def __str__(self):
        return f"{self.branch} at {self.last_commit[:12]}"
