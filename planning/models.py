"""What a SIG plans for a release: proposals, the leads' decisions (append-only) and people's capacity limits.

A plan is keyed by release *version* (`1.37`), not by a `Release` row: a SIG plans a release before its schedule
is published (the schedule import makes the row), and kep.yaml names such releases long before.
"""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from community.models import Person, Sig
from keps.models import VERSION_REGEX, Kep

from .choices import CapacityRole, PlanDecisionKind, ProposedStage

#: The longest note a person may type on a proposal or decision (forms and the API refuse longer).
NOTE_MAX_LENGTH = 2000


class PlanCandidate(models.Model):
    """A KEP proposed on a SIG's plan page for a release by a signed-in person (the `proposed` source)."""

    release = models.CharField(max_length=10, help_text="Release version, e.g. 1.37.")
    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, related_name="plan_candidates")
    kep = models.ForeignKey(Kep, on_delete=models.CASCADE, related_name="plan_candidates")
    stage = models.CharField(max_length=20, choices=ProposedStage.choices, help_text="The stage proposed.")
    note = models.TextField(blank=True, max_length=NOTE_MAX_LENGTH)
    proposed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["release", "sig__slug", "kep__number"]
        verbose_name = "plan proposal"
        constraints = [
            models.UniqueConstraint(
                fields=["release", "sig", "kep"],
                name="plancandidate_one_per_plan",
                violation_error_message="This KEP is already proposed for this SIG's plan of this release.",
            ),
            models.CheckConstraint(
                condition=models.Q(release__regex=VERSION_REGEX),
                name="plancandidate_release_version",
                violation_error_message="Release: a version such as 1.37.",
            ),
            models.CheckConstraint(
                condition=models.Q(stage__in=ProposedStage.values),
                name="plancandidate_stage_valid",
                violation_error_message="Unknown stage.",
            ),
        ]

    def __str__(self):
        return f"KEP-{self.kep.number} proposed for {self.sig.slug} v{self.release}"

    def get_absolute_url(self):
        return reverse("planning:sig_plan", kwargs={"version": self.release, "sig": self.sig.slug})


class PlanDecision(models.Model):
    """One decision of a SIG's lead (or a curator) on a candidate: append-only, the newest row per (release, SIG,
    KEP) is the current decision; `from_decision` is the one it replaced. Written only by
    `planning.services.plan_decision_record`; never changed or deleted (the admin offers neither)."""

    release = models.CharField(max_length=10, help_text="Release version, e.g. 1.37.")
    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, related_name="plan_decisions")
    kep = models.ForeignKey(Kep, on_delete=models.CASCADE, related_name="plan_decisions")
    decision = models.CharField(max_length=20, choices=PlanDecisionKind.choices)
    from_decision = models.CharField(max_length=20, choices=PlanDecisionKind.choices, blank=True)
    note = models.TextField(blank=True, max_length=NOTE_MAX_LENGTH)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-pk"]
        get_latest_by = ["at", "pk"]
        verbose_name = "plan decision"
        indexes = [models.Index(fields=["release", "sig", "kep", "at"], name="plandecision_plan_time")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(decision__in=PlanDecisionKind.values),
                name="plandecision_decision_valid",
                violation_error_message="Decision: commit, maybe or not_this_release.",
            ),
            models.CheckConstraint(
                condition=models.Q(from_decision__in=[*PlanDecisionKind.values, ""]),
                name="plandecision_from_valid",
                violation_error_message="Previous decision: commit, maybe, not_this_release or empty.",
            ),
            models.CheckConstraint(
                condition=models.Q(release__regex=VERSION_REGEX),
                name="plandecision_release_version",
                violation_error_message="Release: a version such as 1.37.",
            ),
        ]

    def __str__(self):
        return f"KEP-{self.kep.number} {self.decision} for {self.sig.slug} v{self.release}"

    def get_absolute_url(self):
        return reverse("planning:sig_plan", kwargs={"version": self.release, "sig": self.sig.slug})


class CapacityLimit(models.Model):
    """A curator's limit on how many KEPs a person can take in one role in one release, in place of the limit
    their past releases prove (`planning.selectors_capacity`)."""

    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="capacity_limits")
    role = models.CharField(max_length=20, choices=CapacityRole.choices)
    limit = models.PositiveSmallIntegerField(help_text="KEPs per release in this role.")
    note = models.CharField(max_length=300, blank=True, help_text="Why, shown on the plan page.")
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, editable=False, related_name="+"
    )
    set_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["person__github", "role"]
        verbose_name = "capacity limit"
        constraints = [
            models.UniqueConstraint(
                fields=["person", "role"],
                name="capacitylimit_one_per_role",
                violation_error_message="This person already has a limit in this role.",
            ),
            models.CheckConstraint(
                condition=models.Q(role__in=CapacityRole.values),
                name="capacitylimit_role_valid",
                violation_error_message="Role: approver, prr_approver or reviewer.",
            ),
            models.CheckConstraint(
                condition=models.Q(limit__gte=1, limit__lte=100),
                name="capacitylimit_limit_range",
                violation_error_message="Limit: between 1 and 100 KEPs.",
            ),
        ]

    def __str__(self):
        return f"{self.person.github} as {self.get_role_display()}: {self.limit}"

    def get_absolute_url(self):
        return reverse("admin:planning_capacitylimit_change", args=[self.pk])
