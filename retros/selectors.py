"""Reads of retrospectives: a release's retros with their items, action items open or due, the tallies retros
recorded (handed to the releases app's figures, see retros/apps.py)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import Count, F, Prefetch, Q, QuerySet

from community.models import Sig
from releases.choices import MilestoneKind
from releases.models import Milestone, Release

from .choices import BOARD_CATEGORIES, ActionStatus, RetroCategory
from .models import RetroItem, Retrospective, RetroVote

OPEN_ACTION_STATUSES = (ActionStatus.OPEN, ActionStatus.IN_PROGRESS)
#: Carried over to the next retros: what is not closed. An item whose status the notes do not give is carried with
#: that status shown (it is not called open), so that old suggestions without an owner stay in sight.
CARRIED_STATUSES = (*OPEN_ACTION_STATUSES, ActionStatus.NOT_RECORDED)

__all__ = [
    "OPEN_ACTION_STATUSES",
    "Board",
    "RetroInputTimes",
    "board_get",
    "carried_over",
    "follow_through",
    "follow_through_by_release",
    "open_action_items",
    "recorded_tallies",
    "retro_action_item_count",
    "retro_action_items",
    "retro_input_times",
    "retro_sig_ids",
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
        queryset=RetroItem.objects.filter(hidden_at__isnull=True)
        .select_related("owner", "due_release")
        .order_by("category", "order", "pk"),
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
    queryset = RetroItem.objects.filter(category=RetroCategory.ACTION_ITEM, hidden_at__isnull=True)
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


# -- the board ------------------------------------------------------------------------------------------------


def _due_by(release: Release) -> Q:
    """Action items due in `release` or an earlier one."""
    return Q(due_release__major__lt=release.major) | Q(
        due_release__major=release.major, due_release__minor__lte=release.minor
    )


def carried_over(*, release: Release, sig: Sig) -> list[RetroItem]:
    """The action items of the SIG's earlier retros that are not closed: open, in progress, or not recorded."""
    earlier = Q(retrospective__release__major__lt=release.major) | Q(
        retrospective__release__major=release.major, retrospective__release__minor__lt=release.minor
    )
    return list(
        RetroItem.objects.filter(
            earlier,
            retrospective__sig=sig,
            category=RetroCategory.ACTION_ITEM,
            status__in=CARRIED_STATUSES,
            hidden_at__isnull=True,
        )
        .select_related("owner", "due_release", "retrospective__release", "retrospective__sig")
        .order_by("retrospective__release__major", "retrospective__release__minor", "order", "pk")
    )


def follow_through(*, release: Release, sig: Sig | None = None) -> dict:
    """Of the action items due by `release` (of `sig`, or of every SIG), how many are done."""
    # An action item whose status is not recorded is neither done nor not done: left out, not counted as zero.
    queryset = RetroItem.objects.filter(
        _due_by(release), category=RetroCategory.ACTION_ITEM, hidden_at__isnull=True
    ).exclude(status=ActionStatus.NOT_RECORDED)
    if sig is not None:
        queryset = queryset.filter(retrospective__sig=sig)
    counts = queryset.aggregate(n=Count("pk"), done=Count("pk", filter=Q(status=ActionStatus.DONE)))
    return {"action_items": counts["n"], "done": counts["done"]}


def follow_through_by_release(*, releases: list[Release]) -> dict[str, dict]:
    """{version: {action_items, done}} of the action items due in each release (not cumulative), one query."""
    rows = (
        RetroItem.objects.filter(
            category=RetroCategory.ACTION_ITEM, hidden_at__isnull=True, due_release__in=[r.pk for r in releases]
        )
        .exclude(status=ActionStatus.NOT_RECORDED)
        .values("due_release__version")
        .annotate(n=Count("pk"), done=Count("pk", filter=Q(status=ActionStatus.DONE)))
    )
    return {row["due_release__version"]: {"action_items": row["n"], "done": row["done"]} for row in rows}


@dataclass
class Board:
    release: Release
    sig: Sig
    retro: Retrospective | None
    #: category -> visible items, most votes first, each with `vote_count` and `voted` (by the reader).
    columns: dict[str, list[RetroItem]]
    actions: list[RetroItem]


def board_get(*, release: Release, sig: Sig, user=None) -> Board:
    """The board's visible items by category, sorted by votes within each, and its action items. Four queries at
    most, whatever the number of items and votes: the votes are counted by item in the votes table alone, not by
    joining them to the items."""
    retro = Retrospective.objects.filter(release=release, sig=sig).first()
    columns: dict[str, list[RetroItem]] = {c: [] for c in BOARD_CATEGORIES}
    actions: list[RetroItem] = []
    if retro is not None:
        votes = RetroVote.objects.filter(item__retrospective=retro)
        counts = dict(votes.values("item_id").annotate(n=Count("id")).values_list("item_id", "n"))
        mine = set()
        if user is not None and user.is_authenticated:
            mine = set(votes.filter(user_id=user.pk).values_list("item_id", flat=True))
        items = list(
            # The author's name only, not a User object per item: the page shows nothing else of them.
            RetroItem.objects.filter(retrospective=retro, hidden_at__isnull=True)
            .select_related("owner", "due_release")
            .annotate(author_name=F("author__username"))
        )
        for item in items:
            item.vote_count, item.voted = counts.get(item.pk, 0), item.pk in mine
        items.sort(key=lambda i: (-i.vote_count, i.order, i.pk))
        for item in items:
            if item.category == RetroCategory.ACTION_ITEM:
                actions.append(item)
            else:
                columns.setdefault(item.category, []).append(item)
    return Board(release=release, sig=sig, retro=retro, columns=columns, actions=actions)


def retro_summaries(retros: list[Retrospective], *, now=None) -> dict[int, dict]:
    """For each retro: `collecting`, `carried_over` and `follow_through`, in a constant number of queries whatever
    the number of retros (the API lists up to 500 a page)."""
    from django.utils import timezone

    from .services.board import board_windows

    if not retros:
        return {}
    now = now or timezone.now()
    windows = board_windows(releases=list({r.release_id: r.release for r in retros}.values()))
    sig_ids = {r.sig_id for r in retros}
    actions = list(
        RetroItem.objects.filter(
            retrospective__sig_id__in=sig_ids, category=RetroCategory.ACTION_ITEM, hidden_at__isnull=True
        )
        .select_related("owner", "due_release", "retrospective__release")
        .order_by("retrospective__release__major", "retrospective__release__minor", "order", "pk")
    )
    summaries = {}
    for retro in retros:
        key = (retro.release.major, retro.release.minor)
        own = [a for a in actions if a.retrospective.sig_id == retro.sig_id]
        carried = [
            a
            for a in own
            if a.status in CARRIED_STATUSES and (a.retrospective.release.major, a.retrospective.release.minor) < key
        ]
        due = [
            a
            for a in own
            if a.due_release_id
            and a.status != ActionStatus.NOT_RECORDED
            and (a.due_release.major, a.due_release.minor) <= key
        ]
        summaries[retro.pk] = {
            "collecting": windows[retro.release_id].is_open(now),
            "carried_over": carried,
            "follow_through": {"action_items": len(due), "done": sum(a.status == ActionStatus.DONE for a in due)},
        }
    return summaries


# -- reminders (read by the reminders app) --------------------------------------------------------------------


def open_action_items(*, sig_ids, owned: bool = False) -> list[RetroItem]:
    """The visible action items of these SIGs' retros that are open or in progress (not done, dropped or with no
    status recorded), whatever their due release, with owner, due release, retro and SIG joined; `owned`: only
    those with an owner. Oldest retro first. One query."""
    queryset = RetroItem.objects.filter(
        retrospective__sig_id__in=list(sig_ids),
        category=RetroCategory.ACTION_ITEM,
        status__in=OPEN_ACTION_STATUSES,
        hidden_at__isnull=True,
    )
    if owned:
        queryset = queryset.filter(owner__isnull=False)
    return list(
        queryset.select_related("owner", "due_release", "retrospective__release", "retrospective__sig").order_by(
            "retrospective__release__major", "retrospective__release__minor", "retrospective__sig__slug", "order", "pk"
        )
    )


def is_overdue(item: RetroItem, release: Release) -> bool:
    """Whether an open action item was due in a release earlier than `release`."""
    due = item.due_release
    return due is not None and (due.major, due.minor) < (release.major, release.minor)


def retro_sig_ids(*, release_id: int) -> set[int]:
    """The SIGs with a retro (a board someone wrote on, or notes imported) for the release. One query."""
    return set(Retrospective.objects.filter(release_id=release_id).values_list("sig_id", flat=True))


#: "A week before the retro meeting"; without a retro milestone, this long before the board closes.
RETRO_INPUT_LEAD = datetime.timedelta(days=7)


@dataclass(frozen=True)
class RetroInputTimes:
    """When a release's SIGs are told that retro input is open, and until when each reminder is worth sending.

    `midpoint`: halfway between the board's opening (the cycle's start) and release day; worth sending until
    `week_before` comes. `week_before`: a week before the (first) retrospective milestone `retro`, else a week
    before the board `closes` (three weeks after release day); worth sending until the retro (else the close).
    Either is None when the dates to compute it are missing or it falls outside the board's window."""

    midpoint: datetime.datetime | None
    week_before: datetime.datetime | None
    retro: datetime.datetime | None
    closes: datetime.datetime | None

    def until(self, *, midpoint: bool) -> datetime.datetime | None:
        """The instant after which the reminder (the midpoint's, else the week-before's) is no longer worth sending."""
        if midpoint and self.week_before is not None:
            return self.week_before
        return self.retro or self.closes


def retro_input_times(*, releases: list[Release]) -> dict[int, RetroInputTimes]:
    """The retro-input instants of each release (`RetroInputTimes`), in three queries whatever their number."""
    from .services.board import board_windows

    if not releases:
        return {}
    windows = board_windows(releases=releases)
    meetings: dict[int, datetime.datetime] = {}
    for release_id, at in Milestone.objects.filter(
        release_id__in=[r.pk for r in releases], kind=MilestoneKind.RETROSPECTIVE, sig__isnull=True
    ).values_list("release_id", "at"):
        meetings[release_id] = min(at, meetings.get(release_id, at))
    times = {}
    for release in releases:
        window = windows[release.pk]
        if window.opens is None or window.closes is None:
            times[release.pk] = RetroInputTimes(None, None, meetings.get(release.pk), window.closes)
            continue
        meeting = meetings.get(release.pk)
        week_before = (meeting or window.closes) - RETRO_INPUT_LEAD
        midpoint = None
        if release.release_date:
            day = datetime.datetime.combine(release.release_date, datetime.time(), tzinfo=datetime.UTC)
            midpoint = window.opens + (day - window.opens) / 2

        midpoint, week_before = (
            at if at is not None and window.is_open(at) else None for at in (midpoint, week_before)
        )
        times[release.pk] = RetroInputTimes(midpoint, week_before, meeting, window.closes)
    return times
