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
