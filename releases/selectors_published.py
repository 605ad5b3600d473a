"""Reads of what the release team published besides the schedule: exception requests, the release team, the
early feature sheets. Each read costs a fixed number of queries; the exception-request reads apply
`ExceptionRequestFilterSet`, the one the API uses, so a page and `/api/v1/exception-requests/` agree."""

from collections import Counter
from dataclasses import dataclass

from django.db.models import QuerySet

from community.models import Person
from keps.models import Kep

from .choices import ExceptionDecision, Freeze, ReleaseRoleKind
from .filtersets import ExceptionRequestFilterSet
from .models import EnhancementException, FeatureSheetRow, Release, ReleaseTeamMember
from .rules import FREEZE_ORDER


def exception_request_list(*, filters: dict | None = None) -> QuerySet[EnhancementException]:
    """Exception requests of every release, oldest release first, filtered as the API's `?release=&kep=&freeze=
    &decision=` say (one query; a `release` filter costs one more, to look the version up)."""
    queryset = EnhancementException.objects.select_related(
        "release", "tracked_enhancement__kep", "tracked_enhancement__sig"
    ).order_by("release__major", "release__minor", "requested_at", "pk")
    return ExceptionRequestFilterSet(filters or {}, queryset=queryset).qs if filters else queryset


@dataclass(frozen=True)
class ExceptionCount:
    freeze: str
    freeze_label: str
    counts: list[tuple[str, str, int]]  # (decision, label, count) in the order of ExceptionDecision
    total: int


def release_exception_requests(*, release: Release) -> tuple[list[EnhancementException], list[ExceptionCount]]:
    """A release's exception requests (all sources, KEP-less ones included) and their counts by freeze and
    decision, freezes in cycle order (one query: the counts are taken from the list)."""
    # The release is at hand: filtered by it directly, as `?release=` would, without looking its version up.
    requests = list(exception_request_list().filter(release=release))
    by = Counter((request.freeze, request.decision) for request in requests)
    table = []
    for freeze in FREEZE_ORDER:
        counts = [(d.value, d.label, by.get((freeze, d.value), 0)) for d in ExceptionDecision]
        total = sum(n for *_, n in counts)
        if total:
            table.append(ExceptionCount(freeze, Freeze(freeze).label, counts, total))
    return requests, table


def kep_exception_requests(*, kep: Kep) -> list[EnhancementException]:
    """Every exception request of a KEP, in every release (one query)."""
    return list(exception_request_list(filters={"kep": kep.number}))


@dataclass(frozen=True)
class TeamRole:
    role: str
    label: str
    leads: list[Person]
    shadows: list[Person]


def release_team(*, release: Release) -> list[TeamRole]:
    """The release's team, role by role in the roster's order, each with its lead(s) and shadows (one query)."""
    roles: dict[str, TeamRole] = {}
    for member in release.team_members.select_related("person").order_by("order", "pk"):
        role = roles.setdefault(member.role_label, TeamRole(member.role, member.role_label, [], []))
        (role.shadows if member.is_shadow else role.leads).append(member.person)
    return list(roles.values())


def release_enhancements_lead(*, release_id: int) -> tuple[Person | None, list[Person]]:
    """The cycle's enhancements lead and its shadows (the cycle's enhancements contacts), from its roster (one
    query); (None, []) when the roster is not imported."""
    members = ReleaseTeamMember.objects.filter(release_id=release_id, role=ReleaseRoleKind.ENHANCEMENTS)
    lead, shadows = None, []
    for member in members.select_related("person").order_by("order", "pk"):
        if member.is_shadow:
            shadows.append(member.person)
        elif lead is None:
            lead = member.person
    return lead, shadows


def person_release_roles(*, person: Person) -> list[ReleaseTeamMember]:
    """The release roles a person held, newest release first (one query)."""
    return list(
        ReleaseTeamMember.objects.filter(person=person)
        .select_related("release")
        .order_by("-release__major", "-release__minor", "order")
    )


def release_feature_sheet(*, release: Release) -> list[FeatureSheetRow]:
    """The release's feature sheet as published (1.3-1.12), with each row's SIG and tracked KEP (one query)."""
    return list(release.feature_sheet_rows.select_related("sig", "tracked_enhancement__kep").order_by("position"))
