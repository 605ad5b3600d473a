"""Action items: made by a SIG's leads and curators from a board item or a new line, with an owner (a GitHub
handle), the release they are due in and optionally a GitHub issue; their status changes, each kept in an
append-only history (`ActionItemStatusChange`); and the follow-through sync that reads linked issues.

One write path for status (`action_item_set_status`): the board, the admin, the notes import and the GitHub sync all
call it, and it writes the history row.
"""

from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.admin.models import ADDITION, CHANGE
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from community.models import Person, Sig
from github_sync.github.client import GitHubDeadlineExceeded, GitHubError, GitHubRateLimited
from releases.models import Release

from ..choices import ActionStatus, RetroCategory, StatusSource
from ..github_issues import IssueGone, issue_ref, issue_state_read
from ..models import MAX_ITEM_CHARS, ActionItemStatusChange, RetroItem
from ..policy import refusal_to_moderate, refusal_to_set_status
from .board import BoardRefused, _log, retro_ensure

logger = logging.getLogger(__name__)

__all__ = [
    "ActionSyncResult",
    "action_item_create",
    "action_item_set_status",
    "action_item_update_status",
    "action_items_sync",
    "new_issue_url",
]

_HANDLE_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def _owner(handle: str) -> Person | None:
    handle = (handle or "").strip().lstrip("@")
    if not handle:
        return None
    if len(handle) > 39 or not set(handle) <= _HANDLE_CHARS:
        raise BoardRefused("owner: a GitHub handle (letters, digits and hyphens, at most 39)", 400)
    person = Person.objects.filter(github__iexact=handle).first()
    return person or Person.objects.create(github=handle)


def action_item_set_status(
    *, item: RetroItem, status: str, source: str, author: str = "", note: str = "", at=None
) -> bool:
    """Set an action item's status and keep the change in its history; False when it already had it."""
    if status not in ActionStatus.values:
        raise BoardRefused(f"status: must be one of {', '.join(ActionStatus.values)}", 400)
    with transaction.atomic():
        # The stored status, read under a row lock: the history's "old" is what was there, not a stale copy's.
        stored = RetroItem.objects.select_for_update().filter(pk=item.pk).values_list("status", flat=True).first()
        item.status = stored if stored is not None else item.status
        if item.status == status:
            return False
        ActionItemStatusChange.objects.create(
            item=item,
            old_status=item.status,
            new_status=status,
            at=at or timezone.now(),
            source=source,
            author=author[:150],
            note=note[:300],
        )
        item.status = status
        RetroItem.objects.filter(pk=item.pk).update(status=status)
    return True


@transaction.atomic
def action_item_create(
    *,
    user,
    release: Release,
    sig: Sig,
    text: str = "",
    owner: str = "",
    due_release: Release | None = None,
    issue_url: str = "",
    from_item: RetroItem | None = None,
    now=None,
) -> RetroItem:
    """A lead's or curator's action item, from a board item (its text unless another is given) or a new line."""
    now = now or timezone.now()
    refusal = refusal_to_moderate(user, sig)
    if refusal:
        raise BoardRefused(refusal)
    retro = retro_ensure(release=release, sig=sig)
    if from_item is not None and (from_item.retrospective_id != retro.pk or from_item.is_hidden):
        raise BoardRefused("from_item: a visible item of this board", 400)
    text = (text or (from_item.text if from_item else "")).strip()
    if not text:
        raise BoardRefused("text: may not be empty", 400)
    if len(text) > MAX_ITEM_CHARS:
        raise BoardRefused(f"text: at most {MAX_ITEM_CHARS} characters ({len(text)} given)", 400)
    issue_url = (issue_url or "").strip()
    if issue_url and issue_ref(issue_url) is None:
        raise BoardRefused("issue_url: a GitHub issue URL, https://github.com/<owner>/<repo>/issues/<number>", 400)
    order = (retro.items.filter(category=RetroCategory.ACTION_ITEM).aggregate(m=Max("order"))["m"] or 0) + 1
    item = RetroItem.objects.create(
        retrospective=retro,
        category=RetroCategory.ACTION_ITEM,
        text=text,
        owner=_owner(owner),
        due_release=due_release,
        issue_url=issue_url,
        from_item=from_item,
        author=user,
        created_at=now,
        updated_at=now,
        order=order,
        status=ActionStatus.OPEN,
    )
    ActionItemStatusChange.objects.create(
        item=item,
        old_status="",
        new_status=ActionStatus.OPEN,
        at=now,
        source=StatusSource.BOARD,
        author=user.get_username(),
        note="created" + (f" from item {from_item.pk}" if from_item else ""),
    )
    _log(user, item, ADDITION, "Action item created on the board.")
    return item


def action_item_update_status(*, user, item: RetroItem, status: str) -> bool:
    """The owner or a lead sets an unlinked action item's status (kept in its history); False if unchanged."""
    refusal = refusal_to_set_status(user, item)
    if refusal:
        raise BoardRefused(refusal)
    if item.category != RetroCategory.ACTION_ITEM:
        raise BoardRefused("only action items have a status", 400)
    with transaction.atomic():
        changed = action_item_set_status(
            item=item, status=status, source=StatusSource.BOARD, author=user.get_username(), note="set on the board"
        )
        if changed:
            _log(user, item, CHANGE, f"Status → {status}.")
    return changed


def new_issue_url(*, item: RetroItem, repository: str, board_url: str) -> str:
    """GitHub's prefilled new-issue page in the SIG's repository (nothing is posted): title, and a body linking
    back to the retro."""
    retro = item.retrospective
    body = (
        f"Action item from the {retro.sig.slug} retrospective of v{retro.release.version}:\n\n"
        f"> {item.text}\n\nRetro board: {board_url}\n"
    )
    query = urlencode({"title": item.text.splitlines()[0][:200], "body": body[:4000]})
    return f"https://github.com/{repository}/issues/new?{query}"


# -- follow-through sync ---------------------------------------------------------------------------------------


def _status_for(state: str, reason: str) -> str | None:
    """What a linked issue's state says of the action item: closed as completed → done, closed as not planned →
    dropped, open (reopened) → open; anything else says nothing."""
    if state == "closed":
        return {"completed": ActionStatus.DONE, "not_planned": ActionStatus.DROPPED}.get(reason, ActionStatus.DONE)
    if state == "open":
        return ActionStatus.OPEN
    return None


@dataclass
class ActionSyncResult:
    read: int = 0
    unchanged: int = 0
    changed: int = 0
    failed: list[str] = field(default_factory=list)


def action_items_sync(*, deadline: float | None = None, dry_run: bool = False, now=None) -> ActionSyncResult:
    """Read every linked issue of an action item not closed by hand, and follow its state (see `_status_for`).

    Conditional requests: the ETag of the last read goes along, and a 304 costs nothing. The whole sync stops at
    `deadline` seconds (GITHUB_SYNC_DEADLINE); what was read is kept, the next run goes on. A 404 is reported and
    the item is left as it is (the issue may have moved).
    """
    token, api_url = settings.GITHUB_TOKEN, settings.GITHUB_API_URL
    if not token:
        raise GitHubError("GITHUB_TOKEN is not set: export a GitHub token (public read access is enough).")
    deadline = deadline if deadline is not None else settings.GITHUB_SYNC_DEADLINE
    ends = timezone.now() + datetime.timedelta(seconds=deadline)
    result = ActionSyncResult()
    items = RetroItem.objects.filter(category=RetroCategory.ACTION_ITEM).exclude(issue_url="").order_by("pk")
    for item in items.iterator():
        ref = issue_ref(item.issue_url)
        if ref is None:
            result.failed.append(f"action item {item.pk}: {item.issue_url!r} is not a GitHub issue URL")
            continue
        left = (ends - timezone.now()).total_seconds()
        if left <= 0:
            result.failed.append("stopped at the deadline (GITHUB_SYNC_DEADLINE); the next run goes on")
            break
        try:
            state = issue_state_read(ref=ref, etag=item.issue_etag, token=token, api_url=api_url, deadline=left)
        except IssueGone:
            result.failed.append(f"action item {item.pk}: GitHub has no {item.issue_url} (404)")
            continue
        except (GitHubDeadlineExceeded, GitHubRateLimited) as exc:
            result.failed.append(f"stopped at action item {item.pk}: {exc} The next run goes on.")
            break
        except GitHubError as exc:
            result.failed.append(f"action item {item.pk}: {exc}")
            continue
        result.read += 1
        if state is None:
            result.unchanged += 1
            continue
        status = _status_for(state.state, state.state_reason)
        if dry_run:
            result.changed += int(status is not None and status != item.status)
            continue
        with transaction.atomic():
            if status is not None and action_item_set_status(
                item=item,
                status=status,
                source=StatusSource.GITHUB,
                author="github sync",
                note=f"issue {state.state}" + (f" ({state.state_reason})" if state.state_reason else ""),
                at=now,
            ):
                result.changed += 1
            item.issue_etag, item.issue_checked_at = state.etag, now or timezone.now()
            item.save(update_fields=["issue_etag", "issue_checked_at"])
    return result
