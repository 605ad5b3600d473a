"""Writes on a retro board: its window, items people add, edit, delete and +1, and what leads do to them (hide,
merge duplicates).

The window (`board_window`): from the cycle's start until a week after the schedule's retrospective milestone, else
four weeks after release day; read-only before and after. A release with neither a cycle start nor a release day
has no window (the board is closed: nothing says when the cycle runs). Every write goes through one function here,
which checks the window and the person, and writes an admin log entry (the admin's history of the row).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.conf import settings
from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.cache import caches
from django.db import IntegrityError, transaction
from django.db.models import Max, Min
from django.utils import timezone

from community.models import Sig
from releases.choices import MilestoneKind
from releases.models import Milestone, Release

from ..choices import BOARD_CATEGORIES, RetroCategory
from ..models import MAX_ITEM_CHARS, RetroItem, Retrospective, RetroVote
from ..policy import refusal_to_moderate, refusal_to_post

__all__ = [
    "BoardRefused",
    "BoardWindow",
    "RateLimited",
    "board_window",
    "board_windows",
    "retro_ensure",
    "retro_ensure_if_collecting",
    "retro_item_add",
    "retro_item_delete",
    "retro_item_edit",
    "retro_item_hide",
    "retro_item_vote",
    "retro_items_merge",
]

#: After the retro meeting, input stays open this long (the notes are written up, late thoughts added).
AFTER_RETRO = datetime.timedelta(days=7)
#: Without a retro milestone: this long after release day.
AFTER_RELEASE = datetime.timedelta(weeks=4)


class BoardRefused(Exception):
    """A write the board refuses; `status` is the HTTP status that says so (400, 403, 404)."""

    def __init__(self, message: str, status: int = 403):
        super().__init__(message)
        self.message, self.status = message, status


class RateLimited(BoardRefused):
    def __init__(self, message: str, retry_after: int):
        super().__init__(message, 429)
        self.retry_after = retry_after


@dataclass(frozen=True)
class BoardWindow:
    opens: datetime.datetime | None
    closes: datetime.datetime | None

    def state(self, now: datetime.datetime) -> str:
        """'before', 'open', 'after', or 'unknown' (no dates to say)."""
        if self.opens is None or self.closes is None:
            return "unknown"
        if now < self.opens:
            return "before"
        return "open" if now < self.closes else "after"

    def is_open(self, now: datetime.datetime) -> bool:
        return self.state(now) == "open"


def _midnight(day: datetime.date) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)


def board_window(*, release: Release) -> BoardWindow:
    """When the release's boards take input."""
    return board_windows(releases=[release])[release.pk]


def board_windows(*, releases: list[Release]) -> dict[int, BoardWindow]:
    """The windows of several releases, in two queries whatever their number."""
    ids = [r.pk for r in releases]
    retro_at: dict[int, datetime.datetime] = {}
    for release_id, at in Milestone.objects.filter(
        release_id__in=ids, kind=MilestoneKind.RETROSPECTIVE, sig__isnull=True
    ).values_list("release_id", "at"):
        # A retro held in parts: input stays open until a week after the last.
        retro_at[release_id] = max(at, retro_at.get(release_id, at))
    first_at = dict(
        Milestone.objects.filter(release_id__in=ids)
        .values("release_id")
        .annotate(m=Min("at"))
        .values_list("release_id", "m")
    )
    windows = {}
    for release in releases:
        opens = _midnight(release.cycle_start) if release.cycle_start else None
        if release.pk in retro_at:
            closes = retro_at[release.pk] + AFTER_RETRO
        elif release.release_date:
            closes = _midnight(release.release_date) + AFTER_RELEASE
        else:
            closes = None
        if opens is None and closes is not None:
            # No cycle start recorded: the board opens with the cycle's first recorded milestone, if any.
            opens = first_at.get(release.pk)
        windows[release.pk] = BoardWindow(opens=opens, closes=closes)
    return windows


def _log(user, obj, flag: int, message: str) -> None:
    """The admin's history of the row: every write on the board is there, as if made in the admin."""
    if user is None or not user.is_authenticated:
        return
    LogEntry.objects.create(
        user_id=user.pk,
        content_type_id=ContentType.objects.get_for_model(type(obj)).pk,
        object_id=str(obj.pk),
        object_repr=str(obj)[:200],
        action_flag=flag,
        change_message=message[:2000],
    )


def retro_ensure(*, release: Release, sig: Sig) -> Retrospective:
    """The SIG's retro of the release, made when its board first takes input."""
    retro, _ = Retrospective.objects.get_or_create(release=release, sig=sig)
    return retro


def retro_ensure_if_collecting(*, version: str, sig_slug: str, now=None) -> Retrospective | None:
    """The SIG's retro of a release whose board is open now, made if missing (a retro exists as soon as its board
    opens, before anyone has typed a line); None when the board is not open or the release or SIG is unknown."""
    release = Release.objects.filter(version=(version or "").removeprefix("v")).first()
    sig = Sig.objects.filter(slug=sig_slug or "").first()
    if release is None or sig is None or not board_window(release=release).is_open(now or timezone.now()):
        return None
    return retro_ensure(release=release, sig=sig)


def _open_or_refuse(release: Release, now: datetime.datetime) -> None:
    window = board_window(release=release)
    state = window.state(now)
    if state == "before":
        raise BoardRefused(f"the v{release.version} board opens on {window.opens:%Y-%m-%d}")
    if state == "after":
        raise BoardRefused(f"the v{release.version} board closed on {window.closes:%Y-%m-%d}")
    if state == "unknown":
        raise BoardRefused(f"the v{release.version} board is closed: its cycle has no dates")


def _text(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise BoardRefused("text: may not be empty", 400)
    if len(text) > MAX_ITEM_CHARS:
        raise BoardRefused(f"text: at most {MAX_ITEM_CHARS} characters ({len(text)} given)", 400)
    return text


def _rate_limit(user, now: datetime.datetime) -> None:
    """At most SIGTRACKER_RETRO_ITEM_RATE new items a person per window of time (counted in the shared cache)."""
    count, seconds = settings.SIGTRACKER_RETRO_ITEM_RATE
    cache = caches[settings.SIGTRACKER_API_THROTTLE_CACHE]
    bucket = int(now.timestamp()) // seconds
    key = f"retro-items:{user.pk}:{bucket}"
    try:
        cache.add(key, 0, timeout=seconds + 5)
        used = cache.incr(key)
    except Exception:  # the shared cache is down: count nothing rather than refuse everyone
        return
    if used > count:
        raise RateLimited(
            f"at most {count} new items every {seconds // 60} minutes a person",
            retry_after=seconds - int(now.timestamp()) % seconds,
        )


@transaction.atomic
def retro_item_add(*, user, release: Release, sig: Sig, category: str, text: str, now=None) -> RetroItem:
    """A signed-in person's new item on the board (went well, to improve, discuss)."""
    now = now or timezone.now()
    refusal = refusal_to_post(user)
    if refusal:
        raise BoardRefused(refusal)
    if category not in BOARD_CATEGORIES:
        raise BoardRefused(f"category: must be one of {', '.join(BOARD_CATEGORIES)}", 400)
    text = _text(text)
    _open_or_refuse(release, now)
    _rate_limit(user, now)
    retro = retro_ensure(release=release, sig=sig)
    order = (retro.items.filter(category=category).aggregate(m=Max("order"))["m"] or 0) + 1
    item = RetroItem.objects.create(
        retrospective=retro, category=category, text=text, author=user, created_at=now, updated_at=now, order=order
    )
    _log(user, item, ADDITION, f"Added on the board ({RetroCategory(category).label.lower()}).")
    return item


def _own_open_item(user, item: RetroItem, now) -> None:
    if refusal_to_post(user):
        raise BoardRefused(refusal_to_post(user))
    if item.author_id != user.pk:
        raise BoardRefused("not your item: only its author edits or deletes it")
    if item.is_hidden:
        raise BoardRefused("the item is hidden", 404)
    _open_or_refuse(item.retrospective.release, now)


@transaction.atomic
def retro_item_edit(*, user, item: RetroItem, text: str, now=None) -> RetroItem:
    now = now or timezone.now()
    _own_open_item(user, item, now)
    text = _text(text)
    if text != item.text:
        item.text, item.updated_at = text, now
        item.save(update_fields=["text", "updated_at"])
        _log(user, item, CHANGE, "Edited on the board by its author.")
    return item


@transaction.atomic
def retro_item_delete(*, user, item: RetroItem, now=None) -> None:
    now = now or timezone.now()
    _own_open_item(user, item, now)
    _log(user, item, DELETION, "Deleted on the board by its author.")
    item.delete()


def retro_item_vote(*, user, item: RetroItem, now=None) -> bool:
    """+1 `item` for `user`; False when they had already voted (a second vote changes nothing)."""
    now = now or timezone.now()
    refusal = refusal_to_post(user)
    if refusal:
        raise BoardRefused(refusal)
    if item.is_hidden or item.category not in BOARD_CATEGORIES:
        raise BoardRefused("only visible board items take votes", 404 if item.is_hidden else 400)
    _open_or_refuse(item.retrospective.release, now)
    try:
        with transaction.atomic():
            vote = RetroVote.objects.create(item=item, user=user)
    except IntegrityError:
        return False
    _log(user, vote, ADDITION, f"+1 on item {item.pk}.")
    return True


def _moderator_or_refuse(user, item: RetroItem) -> None:
    refusal = refusal_to_moderate(user, item.retrospective.sig)
    if refusal:
        raise BoardRefused(refusal)


@transaction.atomic
def retro_item_hide(*, user, item: RetroItem, reason: str, now=None) -> RetroItem:
    """A lead or curator hides an item: kept, with the reason, shown nowhere public (page, API, feeds)."""
    now = now or timezone.now()
    _moderator_or_refuse(user, item)
    reason = (reason or "").strip()
    if not reason:
        raise BoardRefused("reason: say why the item is hidden", 400)
    item.hidden_at, item.hidden_reason = now, reason[:300]
    item.save(update_fields=["hidden_at", "hidden_reason"])
    _log(user, item, CHANGE, f"Hidden: {reason[:300]}")
    return item


@transaction.atomic
def retro_items_merge(*, user, keep: RetroItem, duplicate: RetroItem, now=None) -> RetroItem:
    """Merge `duplicate` into `keep`: its voters' votes move over (one each: who voted on both counts once), and
    the duplicate is hidden with a reason pointing at `keep`."""
    now = now or timezone.now()
    _moderator_or_refuse(user, keep)
    if keep.pk == duplicate.pk or keep.retrospective_id != duplicate.retrospective_id:
        raise BoardRefused("merge: two different items of the same board", 400)
    if duplicate.is_hidden or keep.is_hidden:
        raise BoardRefused("merge: a hidden item is not merged", 400)
    voters = set(RetroVote.objects.filter(item=keep).values_list("user_id", flat=True))
    moving = RetroVote.objects.filter(item=duplicate).exclude(user_id__in=voters)
    moving.update(item=keep)
    RetroVote.objects.filter(item=duplicate).delete()  # those who voted on both: counted once, on `keep`
    duplicate.merged_into = keep
    duplicate.hidden_at, duplicate.hidden_reason = now, f"merged into item {keep.pk}"
    duplicate.save(update_fields=["merged_into", "hidden_at", "hidden_reason"])
    _log(user, duplicate, CHANGE, f"Merged into item {keep.pk}.")
    _log(user, keep, CHANGE, f"Item {duplicate.pk} merged into this one.")
    return keep
