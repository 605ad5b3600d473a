from django.db import models


class PlanDecisionKind(models.TextChoices):
    """What a SIG's leads decided about a candidate for a release."""

    COMMIT = "commit", "Commit"
    MAYBE = "maybe", "Maybe"
    NOT_THIS_RELEASE = "not_this_release", "Not this release"


class CapacityRole(models.TextChoices):
    """The roles whose load a plan weighs against each person's capacity."""

    APPROVER = "approver", "Approver"
    PRR_APPROVER = "prr_approver", "PRR approver"
    REVIEWER = "reviewer", "Reviewer"


class CandidateSource(models.TextChoices):
    """Where a candidate came from (a candidate may have several)."""

    KEP_YAML = "kep.yaml", "kep.yaml"
    SLIPPED = "slipped", "Slipped"
    PERMA_BETA = "perma-beta", "Perma-beta"
    PROPOSED = "proposed", "Proposed"


class ProposedStage(models.TextChoices):
    """The stage a proposal plans (kep.yaml's `stage:` words)."""

    ALPHA = "alpha", "Alpha"
    BETA = "beta", "Beta"
    STABLE = "stable", "Stable"
    DEPRECATED = "deprecated", "Deprecated"
    REMOVED = "removed", "Removed"
