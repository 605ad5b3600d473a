"""Feature gates with the release each stage was reached in (/keps/feature-gates/)."""

from django.db.models import (
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.utils import timezone

from keps.models import FeatureGate
from releases.choices import EnhancementStatus
from releases.models import (
    TrackedEnhancement,
)

# --- /keps/feature-gates/ -------------------------------------------------------------------------------


def _stage_reached(stage: str) -> Subquery:
    """The first release in which the KEP shipped at `stage`: a tracked enhancement of it at that target stage
    marked done (by hand, by the notes importer or by the GitHub sync). kep.yaml's milestones are only plans."""
    # Not in a release whose release day (actual, else planned date) is still ahead, as `kep_timeline` has it.
    today = timezone.now().date()
    ahead = Q(release__actual_release_date__gt=today) | Q(
        release__actual_release_date__isnull=True, release__planned_release_date__gt=today
    )
    shipped = (
        TrackedEnhancement.objects.filter(kep=OuterRef("kep"), target_stage=stage, status=EnhancementStatus.DONE)
        .exclude(ahead)
        .order_by("release__major", "release__minor")
    )
    return Subquery(shipped.values("release__version")[:1])


def feature_gate_list() -> QuerySet[FeatureGate]:
    """Every feature gate with its KEP; `alpha_reached`, `beta_reached`, `stable_reached` annotate the release in
    which the KEP shipped at that stage (None where it has not), beside kep.yaml's planned milestones."""
    return (
        FeatureGate.objects.select_related("kep__owning_sig")
        .annotate(**{f"{stage}_reached": _stage_reached(stage) for stage in ("alpha", "beta", "stable")})
        .order_by("name", "kep__number")
    )
