from django.db import models


class SigRole(models.TextChoices):
    """What a member may do for a SIG in the admin (see community.roles for the matching groups)."""

    LEAD = "lead", "SIG lead"
    LIAISON = "liaison", "Release liaison / KEP wrangler"
    VIEWER = "viewer", "Viewer"


class SigKind(models.TextChoices):
    """Which list of kubernetes/community's sigs.yaml a group comes from."""

    SIG = "sig", "SIG"
    WORKING_GROUP = "wg", "Working group"
    COMMITTEE = "committee", "Committee"
    USER_GROUP = "ug", "User group"


class SigLeaderRole(models.TextChoices):
    """`leadership:` roles in sigs.yaml that reminders reach."""

    CHAIR = "chair", "SIG chair"
    TECH_LEAD = "tech_lead", "tech lead"


class MeetingFrequency(models.TextChoices):
    """How often a SIG meeting recurs, read from sigs.yaml's free-text `frequency`."""

    WEEKLY = "weekly", "Weekly"
    BIWEEKLY = "biweekly", "Every other week"
    MONTHLY = "monthly", "Monthly"
    OTHER = "other", "Other (see the note)"


class Weekday(models.IntegerChoices):
    MONDAY = 0, "Monday"
    TUESDAY = 1, "Tuesday"
    WEDNESDAY = 2, "Wednesday"
    THURSDAY = 3, "Thursday"
    FRIDAY = 4, "Friday"
    SATURDAY = 5, "Saturday"
    SUNDAY = 6, "Sunday"
