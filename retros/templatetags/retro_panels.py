"""Retro panels for pages of the apps below this one: the release page's retrospectives, the dashboard's open
action items. Those templates `{% load retro_panels %}` by name, so the releases app never imports this one."""

from django import template

from releases.selectors import release_previous

from .. import selectors

register = template.Library()


@register.inclusion_tag("retros/_release_retros.html")
def release_retros(release):
    """The release's SIG retros, then the follow-through on the previous release's action items."""
    previous = release_previous(release=release)
    previous_actions = selectors.retro_action_items(release=previous) if previous else []
    return {
        "release": release,
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
