"""Perma-betas: KEPs that sit in one stage across several releases (/keps/perma-beta/)."""

from dataclasses import dataclass

from core.versions import version_or_none
from keps.choices import CLOSED_KEP_STATUSES, KepStage
from keps.filtersets import PermaBetaFilterSet
from keps.models import FeatureGate, Kep
from releases.choices import EnhancementStatus
from releases.models import (
    Release,
    TrackedEnhancement,
)

from .selectors_plans import plan_slip_count

# --- /keps/perma-beta/ ----------------------------------------------------------------------------------


#: The perma-beta list's default N.
PERMA_BETA_DEFAULT_RELEASES = 3


@dataclass
class PermaBetaRow:
    kep: Kep
    stage: str
    since: str
    since_source: str
    releases: int
    slips: int = 0  # planned slips (kep.yaml history on master), for sorting by slips

    @property
    def feature_gates(self) -> list[FeatureGate]:
        """Filled in by `perma_beta_enrich()`."""
        return list(self.kep.feature_gates.all())

    @property
    def last_mention_url(self) -> str:
        if not getattr(self.kep, "last_mention_date", None):
            return ""
        return f"/meetings/{self.kep.last_mention_sig}/{self.kep.last_mention_date:%Y-%m-%d}/"


@dataclass
class PermaBetaResult:
    rows: list[PermaBetaRow]
    newest: str  # the newest release known ("" when none is)
    min_releases: int
    undated: int  # KEPs in the stage whose arrival in it is not known


def newest_release_version() -> str:
    """The newest release known: of the Release rows and of the KEPs' latest milestones."""
    versions = [v for v in Release.objects.order_by("-major", "-minor").values_list("version", flat=True)[:1]]
    versions += list(
        Kep.objects.exclude(latest_milestone="").order_by().values_list("latest_milestone", flat=True).distinct()
    )
    parsed = [p for p in (version_or_none(v) for v in versions) if p]
    if not parsed:
        return ""
    major, minor = max(parsed)
    return f"{major}.{minor}"


def perma_beta_reference_version() -> str:
    """The release perma-betas are counted against: the current one (the active release, else the latest
    released). A release still being planned, or a KEP planning a stage for 1.40, must not make every beta
    look older than it is. Without any Release row, the newest release the KEPs name."""
    current = Release.objects.current()
    return current.version if current else newest_release_version()


def perma_beta_list(*, filters: dict | None = None) -> PermaBetaResult:
    """KEPs in beta (or alpha) for at least N releases (filter `min_releases`, default 3).

    A KEP that reached beta in 1.22 has been in beta for 3 releases at 1.25 (the current release):
    the count is the number of minor releases since it arrived in the stage. Arrival is the kep.yaml
    milestone for the stage, else the first release in which the tracking board shows it shipped at that
    stage. Feature gates take the stage of their KEP. KEPs that are closed (implemented, withdrawn, rejected,
    replaced) are not stuck anywhere and are left out, whatever stage their kep.yaml last named.
    """
    filters = filters or {}
    try:
        min_releases = max(1, int(filters.get("min_releases") or PERMA_BETA_DEFAULT_RELEASES))
    except (TypeError, ValueError):
        min_releases = PERMA_BETA_DEFAULT_RELEASES
    newest = perma_beta_reference_version()
    newest_parts = version_or_none(newest)

    # Phase 1, on plain values: which KEPs qualify. Most KEPs in beta or alpha do not, so nothing heavier
    # than a few columns is read for them.
    candidates = PermaBetaFilterSet(
        filters,
        queryset=Kep.objects.filter(stage__in=[KepStage.BETA, KepStage.ALPHA])
        .exclude(status__in=CLOSED_KEP_STATUSES)
        .order_by(),
    ).qs.values_list("pk", "stage", "alpha_milestone", "beta_milestone")
    since_by_pk: dict[int, tuple[str, str]] = {}
    undated_pks = []
    for pk, stage, alpha, beta in candidates:
        since = beta if stage == KepStage.BETA else alpha
        if version_or_none(since):
            since_by_pk[pk] = (since, "kep.yaml")
        else:
            undated_pks.append((pk, stage))
    if undated_pks:
        # Without a stage milestone: the first release whose board shows it shipped at that stage.
        stage_of = dict(undated_pks)
        shipped = (
            TrackedEnhancement.objects.filter(kep_id__in=list(stage_of), status=EnhancementStatus.DONE)
            .order_by("release__major", "release__minor")
            .values_list("kep_id", "target_stage", "release__version")
        )
        for kep_id, target_stage, version in shipped:
            if target_stage == stage_of[kep_id] and kep_id not in since_by_pk:
                since_by_pk[kep_id] = (version, "tracking board")
    undated = len(undated_pks) - sum(1 for pk, _ in undated_pks if pk in since_by_pk)
    qualifying: dict[int, tuple[str, str, int]] = {}
    for pk, (since, source) in since_by_pk.items():
        since_parts = version_or_none(since)
        # Kubernetes has only had 1.x releases; across a major bump the minor count restarts, so count
        # the difference in minors when the majors match and skip the comparison otherwise.
        if not newest_parts or since_parts[0] != newest_parts[0]:
            continue
        releases = newest_parts[1] - since_parts[1]
        if releases >= min_releases:
            qualifying[pk] = (since, source, releases)
    if not newest_parts:
        undated = len(undated_pks) + len(since_by_pk)

    # Phase 2: the qualifying KEPs with the columns the list sorts on. What only the shown page needs
    # (authors, gates, latest mention) comes from perma_beta_enrich().

    keps = (
        Kep.objects.filter(pk__in=list(qualifying))
        .select_related("owning_sig")
        .only("number", "title", "stage", "owning_sig__slug")
        .annotate(plan_slips=plan_slip_count())
    )
    rows = [PermaBetaRow(kep, kep.stage, *qualifying[kep.pk], slips=kep.plan_slips) for kep in keps]
    rows.sort(key=lambda r: (-r.releases, r.kep.number))
    return PermaBetaResult(rows=rows, newest=newest, min_releases=min_releases, undated=undated)
