"""Reads of retrospectives: a release's retros with their items, action items open or due, the tallies retros
recorded (handed to the releases app's figures, see retros/apps.py)."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from releases.models import Release

from .choices import ActionStatus, RetroCategory
from .models import RetroItem, Retrospective

OPEN_ACTION_STATUSES = (ActionStatus.OPEN, ActionStatus.IN_PROGRESS)

__all__ = [
    "OPEN_ACTION_STATUSES",
    "recorded_tallies",
    "retro_action_item_count",
    "retro_action_items",
    "retrospective_exists",
    "retrospective_list",
]


def recorded_tallies(release_ids: set[int]) -> dict[tuple[int, int | None], list[int]]:
    """(release, SIG) -> [tracked, merged] as a retro recorded them."""
    return {
        (retro["release_id"], retro["sig_id"]): [retro["recorded_tracked"], retro["recorded_merged"]]
        for retro in Retrospective.objects.filter(release_id__in=release_ids, recorded_tracked__isnull=False).values(
            "release_id", "sig_id", "recorded_tracked", "recorded_merged"
        )
    }


def _items_prefetch() -> Prefetch:
    return Prefetch(
        "items",
        queryset=RetroItem.objects.select_related("owner", "due_release").order_by("category", "order", "pk"),
    )


def retrospective_exists(*, release: Release) -> bool:
    """Whether any SIG recorded a retro for the release."""
    return Retrospective.objects.filter(release=release).exists()


def retrospective_list(*, release: Release) -> list[Retrospective]:
    """The retros of a release (one per SIG) with their items split into `went_well`, `to_improve`, `actions`."""
    retros = list(
        Retrospective.objects.filter(release=release)
        .select_related("sig", "release")
        .prefetch_related(_items_prefetch())
        .order_by("sig")
    )
    for retro in retros:
        items = list(retro.items.all())
        retro.went_well = [i for i in items if i.category == RetroCategory.WENT_WELL]
        retro.to_improve = [i for i in items if i.category == RetroCategory.TO_IMPROVE]
        retro.actions = [i for i in items if i.category == RetroCategory.ACTION_ITEM]
    return retros


def _action_items(*, release: Release | None, open_only: bool) -> QuerySet[RetroItem]:
    queryset = RetroItem.objects.filter(category=RetroCategory.ACTION_ITEM)
    if release is not None:
        queryset = queryset.filter(retrospective__release=release)
    if open_only:
        queryset = queryset.filter(status__in=OPEN_ACTION_STATUSES)
    return queryset


def retro_action_item_count(*, release: Release | None = None, open_only: bool = False) -> int:
    return _action_items(release=release, open_only=open_only).count()


def retro_action_items(*, release: Release | None = None, open_only: bool = False, limit: int | None = None):
    """Action items of the retros of `release` (or of every release), with owner, SIG and due release joined."""
    queryset = _action_items(release=release, open_only=open_only).select_related(
        "owner", "due_release", "retrospective__release", "retrospective__sig"
    )
    queryset = queryset.order_by(
        "-retrospective__release__major", "-retrospective__release__minor", "retrospective__sig__slug", "order", "pk"
    )
    return list(queryset[:limit] if limit else queryset)
