from django.db import models


class KepStatus(models.TextChoices):
    """`status:` of a kep.yaml (https://github.com/kubernetes/enhancements/tree/master/keps/NNNN-kep-template)."""

    PROVISIONAL = "provisional", "Provisional"
    IMPLEMENTABLE = "implementable", "Implementable"
    IMPLEMENTED = "implemented", "Implemented"
    DEFERRED = "deferred", "Deferred"
    REJECTED = "rejected", "Rejected"
    WITHDRAWN = "withdrawn", "Withdrawn"
    REPLACED = "replaced", "Replaced"


#: KEPs nobody is working on any more: they cannot be stuck in a stage.
CLOSED_KEP_STATUSES = (KepStatus.IMPLEMENTED, KepStatus.WITHDRAWN, KepStatus.REJECTED, KepStatus.REPLACED)


class KepStage(models.TextChoices):
    """`stage:` of a kep.yaml: where the feature stands now."""

    ALPHA = "alpha", "Alpha"
    BETA = "beta", "Beta"
    STABLE = "stable", "Stable"
    DEPRECATED = "deprecated", "Deprecated"
    REMOVED = "removed", "Removed"


class PrrStage(models.TextChoices):
    ALPHA = "alpha", "Alpha"
    BETA = "beta", "Beta"
    STABLE = "stable", "Stable"
    DEPRECATION = "deprecation", "Deprecation"


class CoverageStatus(models.TextChoices):
    """How far a design group has been written up (the coverage overview's last column)."""

    DETAILED = "detailed", "Detailed write-up"
    IN_PROGRESS = "in_progress", "Write-up in progress"
    PLANNED = "planned", "Planned"
    SUPPLEMENTARY = "supplementary", "Supplementary / low priority"


class SigRole(models.TextChoices):
    """What a member may do for a SIG in the admin (see keps/migrations for the matching groups)."""

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
