"""`upstream_freshness` in every page's context, for the footer's "upstream as of <date> (<short commit>)"."""

from django.db import DatabaseError

from .selectors import upstream_footer


def upstream_freshness(request) -> dict:
    """Lazily read: a page that does not render the footer (an error page) makes no query; a database that does
    not answer leaves the footer without the line rather than failing the page."""

    def sources():
        try:
            return upstream_footer()
        except DatabaseError:
            return []

    return {"upstream_freshness": _Lazy(sources)}


class _Lazy:
    def __init__(self, load):
        self._load = load
        self._value = None

    def __iter__(self):
        if self._value is None:
            self._value = self._load()
        return iter(self._value)

    def __bool__(self):
        return any(True for _ in self)
