"""The release-wide retro board: every SIG's board of one release side by side, for the release team."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, F

from releases.models import Release

from .choices import BOARD_CATEGORIES, ActionStatus, RetroCategory
from .models import RetroItem, Retrospective, RetroVote

#: How many of the most voted lines of each category the release-wide board shows.
TOP_ITEMS = 10


@dataclass
class SigBoardSummary:
    retro: Retrospective
    #: category -> visible lines
    counts: dict[str, int] = field(default_factory=dict)
    votes: int = 0
    actions_open: int = 0
    actions_done: int = 0
    actions: int = 0


@dataclass
class ReleaseBoard:
    release: Release
    sigs: list[SigBoardSummary]
    #: category -> the most voted visible lines across SIGs, each with `vote_count` and `author_name`
    top: dict[str, list[RetroItem]]
    actions: list[RetroItem]


def release_board_get(*, release: Release) -> ReleaseBoard:
    """Every SIG's board of `release`: per SIG the visible lines by category, votes and action items; the most
    voted lines of each category across SIGs; every action item. Three queries, whatever the number of lines."""
    retros = {r.pk: r for r in Retrospective.objects.filter(release=release).select_related("sig")}
    summaries = {pk: SigBoardSummary(retro=retro) for pk, retro in retros.items()}
    votes = dict(
        RetroVote.objects.filter(item__retrospective__release=release)
        .values("item_id")
        .annotate(n=Count("id"))
        .values_list("item_id", "n")
    )
    items = list(
        RetroItem.objects.filter(retrospective__release=release, hidden_at__isnull=True)
        .select_related("owner", "due_release")
        .annotate(author_name=F("author__username"))
    )
    by_category: dict[str, list[RetroItem]] = defaultdict(list)
    actions = []
    for item in items:
        item.retrospective = retros[item.retrospective_id]
        item.vote_count = votes.get(item.pk, 0)
        summary = summaries[item.retrospective_id]
        summary.votes += item.vote_count
        if item.category == RetroCategory.ACTION_ITEM:
            actions.append(item)
            summary.actions += 1
            summary.actions_open += item.status in (ActionStatus.OPEN, ActionStatus.IN_PROGRESS)
            summary.actions_done += item.status == ActionStatus.DONE
        else:
            summary.counts[item.category] = summary.counts.get(item.category, 0) + 1
            by_category[item.category].append(item)
    top = {}
    for category in BOARD_CATEGORIES:
        lines = sorted(by_category.get(category, []), key=lambda i: (-i.vote_count, i.retrospective.sig.slug, i.pk))
        top[category] = lines[:TOP_ITEMS]
    actions.sort(key=lambda i: (i.retrospective.sig.slug, i.order, i.pk))
    sigs = sorted(summaries.values(), key=lambda s: s.retro.sig.slug)
    return ReleaseBoard(release=release, sigs=sigs, top=top, actions=actions)
