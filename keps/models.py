from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.urls import reverse

from .choices import (
    CoverageStatus,
    KepStage,
    KepStatus,
    MeetingFrequency,
    PrrStage,
    SigKind,
    SigLeaderRole,
    SigRole,
    Weekday,
)

VERSION_REGEX = r"^[0-9]+\.[0-9]+$"


class NaturalKeyManager(models.Manager):
    """Lets fixtures refer to rows by a readable key (a SIG's slug, a KEP's number) instead of ids."""

    def __init__(self, *fields):
        super().__init__()
        self.key_fields = fields

    def get_by_natural_key(self, *values):
        return self.get(**dict(zip(self.key_fields, values, strict=True)))


class SigManager(NaturalKeyManager):
    def listed(self):
        """The SIGs to offer in SIG filters: those of kubernetes/community's sigs.yaml once it has been imported
        (not kep.yaml spellings such as `sig-machinery`); every SIG before that, so a database without it works."""
        community = self.get_queryset().filter(in_community=True)
        return community if community.exists() else self.get_queryset()


class PersonManager(models.Manager):
    def get_by_natural_key(self, github):
        return self.get(github__iexact=github)


class Sig(models.Model):
    """A Kubernetes Special Interest Group, e.g. `sig-node`."""

    slug = models.SlugField(max_length=64, unique=True, help_text="As in kubernetes/community, e.g. sig-node.")
    name = models.CharField(max_length=100, blank=True)
    mailing_list = models.EmailField(blank=True, help_text="Where the freeze-reminder digest goes.")
    reminder_offsets = models.JSONField(
        default=list,
        blank=True,
        help_text="Hours before a freeze at which reminders go out, e.g. [336, 168, 48, 24, 0]; empty: default.",
    )
    # From kubernetes/community's sigs.yaml (`manage.py import_sigs`); rows created from a kep.yaml spelling
    # before that import keep in_community=False, which keeps them out of the SIG filters.
    kind = models.CharField(max_length=20, choices=SigKind.choices, default=SigKind.SIG)
    label = models.CharField(max_length=64, blank=True, help_text="GitHub label suffix: sig/<label>, e.g. node.")
    mission = models.TextField(blank=True)
    mailing_list_url = models.URLField(max_length=300, blank=True, help_text="The Google group's page.")
    slack_channel = models.CharField(max_length=100, blank=True)
    in_community = models.BooleanField(
        default=False, help_text="Listed in kubernetes/community's sigs.yaml (not only named in a kep.yaml)."
    )

    objects = SigManager("slug")

    class Meta:
        ordering = ["slug"]
        verbose_name = "SIG"
        verbose_name_plural = "SIGs"

    def __str__(self):
        return self.slug

    def natural_key(self):
        return (self.slug,)

    @property
    def display_name(self) -> str:
        return self.name or self.slug.replace("sig-", "SIG ").title().replace("Sig ", "SIG ")


class Person(models.Model):
    """A contributor, known by GitHub handle (unique regardless of case)."""

    github = models.CharField(max_length=64, help_text="GitHub handle without the @.")
    name = models.CharField(max_length=200, blank=True)
    email = models.EmailField(blank=True)
    reminders_opt_out = models.BooleanField(default=False, help_text="Send this person no reminder emails.")

    objects = PersonManager()

    class Meta:
        ordering = [Lower("github")]
        verbose_name_plural = "people"
        constraints = [
            models.UniqueConstraint(
                Lower("github"), name="person_github_unique_ci", violation_error_message="That GitHub handle exists."
            ),
            models.CheckConstraint(
                condition=~models.Q(github=""), name="person_github_not_empty", violation_error_message="Handle needed."
            ),
        ]

    def __str__(self):
        return f"@{self.github}"

    def natural_key(self):
        return (self.github,)


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


class SigMembership(models.Model):
    """A user's role in one SIG: which SIG's rows they may change in the admin."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sig_memberships")
    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=SigRole.choices)

    class Meta:
        ordering = ["sig__slug", "user__username"]
        verbose_name = "SIG membership"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "sig"], name="sigmembership_unique", violation_error_message="Already a member."
            ),
            models.CheckConstraint(
                condition=models.Q(role__in=SigRole.values),
                name="sigmembership_role_valid",
                violation_error_message="Unknown role.",
            ),
        ]

    def __str__(self):
        return f"{self.user} — {self.get_role_display()} of {self.sig}"


class SigLeadership(models.Model):
    """A chair or tech lead of a SIG (sigs.yaml `leadership:`, older files `leads:`): who personal reminders reach."""

    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, related_name="leaderships")
    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="sig_leaderships")
    role = models.CharField(max_length=20, choices=SigLeaderRole.choices)

    class Meta:
        ordering = ["sig__slug", "role", "person__github"]
        verbose_name = "SIG leader"
        constraints = [
            models.UniqueConstraint(
                fields=["sig", "person", "role"], name="sigleadership_unique", violation_error_message="Listed twice."
            ),
            models.CheckConstraint(
                condition=models.Q(role__in=SigLeaderRole.values),
                name="sigleadership_role_valid",
                violation_error_message="Unknown role.",
            ),
        ]

    def __str__(self):
        return f"{self.person} — {self.get_role_display()} of {self.sig}"


class SigMeeting(models.Model):
    """A SIG's recurring meeting as sigs.yaml lists it. `day`/`time`/`tz` are empty when the file's words could
    not be read; `frequency_note` keeps what the file says either way."""

    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, related_name="regular_meetings")
    position = models.PositiveSmallIntegerField(default=0, help_text="Order in sigs.yaml.")
    description = models.CharField(max_length=300, blank=True)
    day = models.PositiveSmallIntegerField(choices=Weekday.choices, null=True, blank=True)
    time = models.TimeField(null=True, blank=True, help_text="Local time in `tz`.")
    tz = models.CharField(max_length=64, blank=True, help_text="IANA zone, e.g. America/Los_Angeles.")
    frequency = models.CharField(max_length=20, choices=MeetingFrequency.choices, blank=True)
    week_of_month = models.SmallIntegerField(
        null=True, blank=True, help_text="Monthly meetings: 1-4 for first-fourth, -1 for last."
    )
    anchor_date = models.DateField(null=True, blank=True, help_text="A date it met, for every-other-week meetings.")
    frequency_note = models.CharField(max_length=300, blank=True, help_text="sigs.yaml's words.")
    url = models.URLField(max_length=500, blank=True)
    archive_url = models.URLField(max_length=500, blank=True, help_text="Meeting notes.")
    recordings_url = models.URLField(max_length=500, blank=True)

    class Meta:
        ordering = ["sig__slug", "position"]
        verbose_name = "SIG meeting"
        constraints = [
            models.UniqueConstraint(
                fields=["sig", "position"], name="sigmeeting_unique_position", violation_error_message="Same slot."
            ),
            models.CheckConstraint(
                condition=models.Q(day__isnull=True) | models.Q(day__gte=0, day__lte=6),
                name="sigmeeting_day_valid",
                violation_error_message="Day is 0 (Monday) to 6 (Sunday).",
            ),
            models.CheckConstraint(
                condition=models.Q(frequency__in=[*MeetingFrequency.values, ""]),
                name="sigmeeting_frequency_valid",
                violation_error_message="Unknown frequency.",
            ),
        ]

    def __str__(self):
        return f"{self.sig}: {self.description or 'meeting'}"


class SigAlias(models.Model):
    """A SIG spelling found in kep.yaml files and the SIG it means; an empty `sig_slug` means "no SIG" (`TBD`).

    The one place that maps kep.yaml spellings (`sig-machinery`) to sigs.yaml SIGs. The target is a slug, not a
    foreign key, so an alias can exist (seeded by a migration) before the SIG it names is imported.
    """

    spelling = models.CharField(max_length=100, unique=True, help_text="As written in kep.yaml, lower case.")
    sig_slug = models.CharField(max_length=64, blank=True, help_text="The SIG it means; empty: no SIG.")
    note = models.CharField(max_length=300, blank=True)

    objects = NaturalKeyManager("spelling")

    class Meta:
        ordering = ["spelling"]
        verbose_name = "SIG alias"
        verbose_name_plural = "SIG aliases"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(spelling=Lower("spelling")) & ~models.Q(spelling=""),
                name="sigalias_spelling_lower",
                violation_error_message="Write the spelling in lower case.",
            )
        ]

    def __str__(self):
        return f"{self.spelling} → {self.sig_slug or 'no SIG'}"

    def natural_key(self):
        return (self.spelling,)


class KepPlanChange(models.Model):
    """A change of a KEP's plan in its kep.yaml, as it reached kubernetes/enhancements' master (`import_keps
    --history`): the plan after the commit, and the release it slipped from when the change is a slip
    (`releases.rules.plan_slip`). Keyed by KEP number, not a foreign key: history covers KEPs whose kep.yaml is
    gone (withdrawn, renumbered) and is imported independently of the KEP rows. Git history starts in 2020."""

    kep_number = models.PositiveIntegerField(db_index=True)
    commit_sha = models.CharField(max_length=40)
    committed_at = models.DateTimeField(help_text="When the commit reached master (first-parent commit date).")
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
        ordering = ["kep_number", "committed_at", "pk"]
        verbose_name = "KEP plan change"
        constraints = [
            models.UniqueConstraint(
                fields=["kep_number", "commit_sha"],
                name="kepplanchange_one_per_commit",
                violation_error_message="One plan change per KEP and commit.",
            ),
        ]
        indexes = [models.Index(fields=["kep_number", "committed_at"], name="kepplanchange_kep_time")]

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
    state = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["branch"]

    def __str__(self):
        return f"{self.branch} at {self.last_commit[:12]}"
