"""Panels: what an upper app shows on a lower app's page, without the lower app importing it.

Apps import only the apps below them (docs/architecture.md), yet the KEP page shows the KEP's releases and meeting
mentions, and the release pages their cycle's meetings. So a page's view names its page (`"keps:kep_detail"`) and
asks for its panels; `settings.SIGTRACKER_PAGE_PANELS` lists, per page, the functions of upper apps that fill them
(dotted paths, as `SIGTRACKER_METRICS_COLLECTORS` does for metrics). Each takes the page's keyword arguments (and
ignores those it does not need) and returns the context entries it adds, or None when it only annotates the rows it
was given. The settings, at the top of the layers, are the only place that knows both sides; a page with no panel
registered renders without them.
"""

import functools
from collections.abc import Callable

from django.conf import settings
from django.utils.module_loading import import_string


@functools.cache
def _load(path: str) -> Callable:
    return import_string(path)


def panel_functions(page: str) -> list[Callable]:
    """The functions registered for `page`, in the order the setting lists them."""
    return [_load(path) for path in getattr(settings, "SIGTRACKER_PAGE_PANELS", {}).get(page, ())]


def panel_context(page: str, /, **kwargs) -> dict:
    """Call every panel of `page` with `kwargs`; their context entries merged (a later panel's win)."""
    context = {}
    for function in panel_functions(page):
        context.update(function(**kwargs) or {})
    return context
