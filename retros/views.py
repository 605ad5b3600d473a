"""The retro board of a release and SIG: read by anyone (signed-in readers only in private mode), written through
the board's services (retros.services), each form a POST with its CSRF token."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.defaultfilters import linebreaksbr
from django.utils import timezone
from django.utils.html import format_html
from django.views.generic import TemplateView

from community.models import Sig
from releases.models import Release

from . import selectors
from .choices import BOARD_CATEGORIES, ActionStatus, RetroCategory
from .markdown import board_markdown, sig_repository
from .models import RetroItem
from .policy import is_moderator
from .selectors_release import TOP_ITEMS, release_board_get
from .services.actions import action_item_create, action_item_update_status, new_issue_url
from .services.board import (
    BoardRefused,
    RateLimited,
    board_window,
    retro_item_add,
    retro_item_delete,
    retro_item_edit,
    retro_item_hide,
    retro_item_vote,
    retro_items_merge,
)


def _release(version: str) -> Release:
    if "\x00" in version:
        raise Http404("No such release.")
    return get_object_or_404(Release, version=version.removeprefix("v"))


class BoardView(TemplateView):
    template_name = "retros/board.html"

    def dispatch(self, request, *args, **kwargs):
        self.release = _release(kwargs["version"])
        self.sig = get_object_or_404(Sig, slug=kwargs["sig_slug"])
        return super().dispatch(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        now = timezone.now()
        board = selectors.board_get(release=self.release, sig=self.sig, user=self.request.user)
        window = board_window(release=self.release)
        context.update(
            nav="releases",
            release=self.release,
            sig=self.sig,
            board=board,
            columns=[(RetroCategory(c).label, c, board.columns.get(c, [])) for c in BOARD_CATEGORIES],
            window=window,
            window_state=window.state(now),
            can_post=window.is_open(now) and self.request.user.is_authenticated,
            moderator=is_moderator(self.request.user, self.sig),
            statuses=ActionStatus.choices,
            carried_over=selectors.carried_over(release=self.release, sig=self.sig),
            follow_through=selectors.follow_through(release=self.release, sig=self.sig),
            markdown=board_markdown(board),
            issue_links={
                item.pk: new_issue_url(
                    item=item, repository=sig_repository(self.sig.slug), board_url=self.request.build_absolute_uri()
                )
                for item in board.actions
                if not item.issue_url and board.retro is not None
            },
        )
        for item in board.actions:
            item.retrospective = board.retro  # joined once, not per item
        for items in board.columns.values():
            for item in items:
                # The read-only part of each line, escaped here once: 500 lines through the template's variable
                # lookups and filters cost more than the rest of the page.
                item.line_html = format_html(
                    '<span class="text">{}</span> <span class="muted">— {} · {} vote{}</span>',
                    linebreaksbr(item.text, autoescape=True),
                    item.author_name or "notes",
                    item.vote_count,
                    "" if item.vote_count == 1 else "s",
                )
        return context

    def post(self, request, *args, **kwargs):
        action = request.POST.get("action", "")
        try:
            message = self._act(action, request.POST)
        except RateLimited as exc:
            response = HttpResponse(f"Too many new items: {exc.message}.", status=429, content_type="text/plain")
            response["Retry-After"] = str(exc.retry_after)
            return response
        except BoardRefused as exc:
            if exc.status == 404:
                raise Http404(exc.message) from None
            messages.error(request, f"Refused: {exc.message}.")
            return self._back(status=exc.status)
        messages.success(request, message)
        return self._back()

    def _back(self, status: int = 303):
        if status != 303:
            # A refusal is shown on the board itself, with the status that says what happened.
            response = self.render_to_response(self.get_context_data())
            response.status_code = status
            return response
        response = redirect(request_path(self.request))
        response.status_code = 303  # See Other: the form's POST is not repeated on reload
        return response

    def _item(self, data) -> RetroItem:
        try:
            pk = int(data.get("item", ""))
        except ValueError:
            raise BoardRefused("item: a number", 400) from None
        item = RetroItem.objects.select_related("retrospective__release", "retrospective__sig").filter(pk=pk).first()
        if item is None or item.retrospective.release_id != self.release.pk or item.retrospective.sig_id != self.sig.pk:
            raise BoardRefused("no such item on this board", 404)
        return item

    def _act(self, action: str, data) -> str:
        user = self.request.user
        if action == "add":
            retro_item_add(
                user=user,
                release=self.release,
                sig=self.sig,
                category=data.get("category", ""),
                text=data.get("text", ""),
            )
            return "Added."
        if action == "edit":
            retro_item_edit(user=user, item=self._item(data), text=data.get("text", ""))
            return "Saved."
        if action == "delete":
            retro_item_delete(user=user, item=self._item(data))
            return "Deleted."
        if action == "vote":
            return "+1 counted." if retro_item_vote(user=user, item=self._item(data)) else "You had already voted."
        if action == "hide":
            retro_item_hide(user=user, item=self._item(data), reason=data.get("reason", ""))
            return "Hidden."
        if action == "merge":
            keep = self._item({"item": data.get("into", "")})
            retro_items_merge(user=user, keep=keep, duplicate=self._item(data))
            return "Merged."
        if action == "action_item":
            from_item = self._item(data) if data.get("item") else None
            due = Release.objects.filter(version=data.get("due_release", "").removeprefix("v")).first()
            action_item_create(
                user=user,
                release=self.release,
                sig=self.sig,
                text=data.get("text", ""),
                owner=data.get("owner", ""),
                due_release=due,
                issue_url=data.get("issue_url", ""),
                from_item=from_item,
            )
            return "Action item created."
        if action == "status":
            changed = action_item_update_status(user=user, item=self._item(data), status=data.get("status", ""))
            return "Status set." if changed else "Status unchanged."
        raise BoardRefused(f"unknown action {action[:40]!r}", 400)


class ReleaseBoardView(TemplateView):
    """Every SIG's board of a release side by side, for the release team: read-only, input goes on each board."""

    template_name = "retros/release_board.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        release = _release(kwargs["version"])
        board = release_board_get(release=release)
        window = board_window(release=release)
        context.update(
            nav="releases",
            release=release,
            board=board,
            columns=[(RetroCategory(c).label, board.top.get(c, [])) for c in BOARD_CATEGORIES],
            categories=[(RetroCategory(c).label, c) for c in BOARD_CATEGORIES],
            top_items=TOP_ITEMS,
            window=window,
            window_state=window.state(timezone.now()),
            follow_through=selectors.follow_through(release=release),
        )
        for summary in board.sigs:
            summary.cells = [summary.counts.get(c, 0) for c in BOARD_CATEGORIES]
        return context


def request_path(request) -> str:
    return request.path
