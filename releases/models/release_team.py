"""A release's team, from its roster: who holds which role, as lead or shadow (`ReleaseTeamMember`)."""

from django.db import models

from community.models import Person

from ..choices import ReleaseRoleKind
from .release import Release


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
