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


#: Where a KEP's arrival in its stage was read from: (the release, "kep.yaml" or "tracking board").
Arrival = tuple[str, str]


def perma_beta_list(*, filters: dict | None = None, reference: str = "") -> PermaBetaResult:
    """KEPs in beta (or alpha) for at least N releases (filter `min_releases`, default 3).

    A KEP that reached beta in 1.22 has been in beta for 3 releases at 1.25 (the current release):
    the count is the number of minor releases since it arrived in the stage. Arrival is the kep.yaml
    milestone for the stage, else the first release in which the tracking board shows it shipped at that
    stage. Feature gates take the stage of their KEP. KEPs that are closed (implemented, withdrawn, rejected,
    replaced) are not stuck anywhere and are left out, whatever stage their kep.yaml last named.
    `reference`: the release to count against instead of the current one (a plan for a later release counts
    against the release before it).
    """
    filters = filters or {}
    min_releases = _min_releases(filters)
    newest = reference or perma_beta_reference_version()
    # Which KEPs qualify is worked out on a few columns of every KEP in the stage (most do not); only the
    # qualifying ones are read as KEPs, and only the shown page gets its authors, gates and latest mention
    # (`meetings.selectors.perma_beta_enrich`).
    arrivals, undated = _stage_arrivals(filters)
    qualifying = _releases_in_stage(arrivals, newest=newest, min_releases=min_releases)
    if not version_or_none(newest):
        undated += len(arrivals)  # no release to count against: none is counted
    return PermaBetaResult(rows=_rows(qualifying), newest=newest, min_releases=min_releases, undated=undated)


def _min_releases(filters: dict) -> int:
    try:
        return max(1, int(filters.get("min_releases") or PERMA_BETA_DEFAULT_RELEASES))
    except (TypeError, ValueError):
        return PERMA_BETA_DEFAULT_RELEASES


def _stage_arrivals(filters: dict) -> tuple[dict[int, Arrival], int]:
    """When each open KEP in beta or alpha (of the filters' stage and SIG) arrived in its stage, by primary key,
    and how many KEPs in the stage say nowhere."""
    return _arrivals_of(PermaBetaFilterSet(filters, queryset=_in_stage()).qs)


def _in_stage():
    return (
        Kep.objects.filter(stage__in=[KepStage.BETA, KepStage.ALPHA]).exclude(status__in=CLOSED_KEP_STATUSES).order_by()
    )


def _arrivals_of(keps) -> tuple[dict[int, Arrival], int]:
    arrivals: dict[int, Arrival] = {}
    without_milestone: dict[int, str] = {}
    for pk, stage, alpha, beta in keps.values_list("pk", "stage", "alpha_milestone", "beta_milestone"):
        since = beta if stage == KepStage.BETA else alpha
        if version_or_none(since):
            arrivals[pk] = (since, "kep.yaml")
        else:
            without_milestone[pk] = stage
    arrivals.update(_board_arrivals(without_milestone))
    return arrivals, sum(1 for pk in without_milestone if pk not in arrivals)


def sig_perma_beta_keps(*, sig_id: int, reference: str) -> set[int]:
    """Primary keys of the perma-betas (the list's default N) owned by one SIG, counted against `reference`:
    what `perma_beta_list` would list for that SIG, without the rows' columns (a plan reads its own)."""
    arrivals, _undated = _arrivals_of(_in_stage().filter(owning_sig_id=sig_id))
    return set(_releases_in_stage(arrivals, newest=reference, min_releases=PERMA_BETA_DEFAULT_RELEASES))


def _board_arrivals(stage_of: dict[int, str]) -> dict[int, Arrival]:
    """For KEPs without a stage milestone (`stage_of`: pk -> stage): the first release whose tracking board shows
    the KEP shipped at that stage."""
    if not stage_of:
        return {}
    shipped = (
        TrackedEnhancement.objects.filter(kep_id__in=list(stage_of), status=EnhancementStatus.DONE)
        .order_by("release__major", "release__minor")
        .values_list("kep_id", "target_stage", "release__version")
    )
    arrivals: dict[int, Arrival] = {}
    for kep_id, target_stage, version in shipped:
        if target_stage == stage_of[kep_id] and kep_id not in arrivals:
            arrivals[kep_id] = (version, "tracking board")
    return arrivals


def _releases_in_stage(
    arrivals: dict[int, Arrival], *, newest: str, min_releases: int
) -> dict[int, tuple[str, str, int]]:
    """(since, source, releases in the stage) of the KEPs in their stage for at least `min_releases` releases."""
    newest_parts = version_or_none(newest)
    if not newest_parts:
        return {}
    qualifying = {}
    for pk, (since, source) in arrivals.items():
        since_parts = version_or_none(since)
        # Kubernetes has only had 1.x releases; across a major bump the minor count restarts, so count
        # the difference in minors when the majors match and skip the comparison otherwise.
        if since_parts[0] != newest_parts[0]:
            continue
        releases = newest_parts[1] - since_parts[1]
        if releases >= min_releases:
            qualifying[pk] = (since, source, releases)
    return qualifying


def _rows(qualifying: dict[int, tuple[str, str, int]]) -> list[PermaBetaRow]:
    """The qualifying KEPs with the columns the list sorts on, longest in the stage first."""
    keps = (
        Kep.objects.filter(pk__in=list(qualifying))
        .select_related("owning_sig")
        .only("number", "title", "stage", "owning_sig__slug")
        .annotate(plan_slips=plan_slip_count())
        .order_by()  # sorted below, on the release count the database does not have
    )
    rows = [PermaBetaRow(kep, kep.stage, *qualifying[kep.pk], slips=kep.plan_slips) for kep in keps]
    rows.sort(key=lambda r: (-r.releases, r.kep.number))
    return rows
