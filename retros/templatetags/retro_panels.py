"""Retro panels for pages of the apps below this one: the release page's retrospectives, the dashboard's open
action items. Those templates `{% load retro_panels %}` by name, so the releases app never imports this one."""

from django import template
from django.utils import timezone

from community.choices import SigKind
from community.models import Sig
from core.charts import Series, line_bar_chart
from releases.models import Release
from releases.selectors import release_previous

from .. import selectors
from ..services.board import board_window

register = template.Library()


@register.inclusion_tag("retros/_release_retros.html")
def release_retros(release):
    """The release's SIG retros, then the follow-through on the previous release's action items."""
    previous = release_previous(release=release)
    previous_actions = selectors.retro_action_items(release=previous) if previous else []
    window = board_window(release=release)
    collecting = window.is_open(timezone.now())
    return {
        "release": release,
        "collecting": collecting,
        "closes": window.closes,
        # While input is open, every SIG's board is one click away (a board's retro is made with its first line).
        "board_sigs": list(Sig.objects.filter(kind=SigKind.SIG).order_by("slug")) if collecting else [],
        "retros": selectors.retrospective_list(release=release),
        "previous": previous,
        "previous_actions": previous_actions,
        # "recorded no action items" only of a retro that exists; without one, say there is none.
        "previous_has_retro": bool(previous_actions)
        or (bool(previous) and selectors.retrospective_exists(release=previous)),
    }


@register.inclusion_tag("retros/_open_action_items.html")
def open_action_items(limit: int = 15):
    """The newest open action items of every release, and how many are open in all."""
    return {
        "open_actions": selectors.retro_action_items(open_only=True, limit=limit),
        "open_actions_total": selectors.retro_action_item_count(open_only=True),
    }


@register.inclusion_tag("retros/_follow_through_chart.html")
def follow_through_chart():
    """Per release, the retro action items due in it and how many of them are done (releases with none due are
    left out: no action item due is not a follow-through of 0 %)."""
    releases = list(Release.objects.order_by("major", "minor"))
    by_version = selectors.follow_through_by_release(releases=releases)
    shown = [r for r in releases if by_version.get(r.version, {}).get("action_items")]
    if not shown:
        return {"chart": "", "rows": []}
    rows = [(r.version, by_version[r.version]["action_items"], by_version[r.version]["done"]) for r in shown]
    chart = line_bar_chart(
        title="Retro action items due per release and done",
        labels=[f"v{version}" for version, _, _ in rows],
        series=[
            Series(name="Due", values=[n for _, n, _ in rows], kind="bar"),
            Series(name="Done", values=[d for _, _, d in rows], kind="bar"),
            Series(name="Follow-through", values=[d / n for _, n, d in rows], kind="line", percent=True),
        ],
    )
    return {"chart": chart, "rows": rows}
