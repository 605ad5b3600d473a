"""A page cache for the public, read-only pages, invalidated by the data itself.

Every write to a table the pages read bumps one counter (database triggers, installed by
sigtracker/migrations/0002). A cached page is stored under (counter, minute, path and query), so:
- any change — admin edit, import, stats recompute, bulk COPY — makes the next request render afresh;
- time-dependent parts (countdowns, "next freeze", past milestones) are at most a minute old.
Only anonymous GET/HEAD requests with a 200 answer are cached; the admin, /healthz and logged-in users are not.
"""

import hashlib
import time

from django.conf import settings
from django.core.cache import caches
from django.db import connection

GENERATION_TABLE = "sigtracker_datageneration"
#: Tables whose writes do not change what a public page shows.
UNWATCHED_TABLES = {"releases_reminderdelivery"}
WATCHED_APPS = ("keps", "releases", "meetings")
SKIPPED_PREFIXES = ("/admin/", "/healthz", "/static/")

_memo = {"value": None, "read_at": 0.0}


def watched_tables() -> list[str]:
    """Every table (and many-to-many table) of the curated apps, except those no page reads."""
    from django.apps import apps

    tables = set()
    for label in WATCHED_APPS:
        for model in apps.get_app_config(label).get_models(include_auto_created=True):
            if not model._meta.proxy and model._meta.managed:
                tables.add(model._meta.db_table)
    return sorted(tables - UNWATCHED_TABLES)


def _trigger_name(table: str) -> str:
    return f"sigtracker_gen_{table}"[:63]


def generation_triggers_install(conn) -> None:
    with conn.cursor() as cursor:
        cursor.execute(f"INSERT INTO {GENERATION_TABLE} (id, value) VALUES (1, 0)")
        if conn.vendor == "postgresql":
            cursor.execute(
                f"""CREATE OR REPLACE FUNCTION sigtracker_bump_generation() RETURNS trigger AS $$
                BEGIN UPDATE {GENERATION_TABLE} SET value = value + 1 WHERE id = 1; RETURN NULL; END;
                $$ LANGUAGE plpgsql"""
            )
            for table in watched_tables():
                cursor.execute(
                    f'CREATE TRIGGER "{_trigger_name(table)}" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE '
                    f'ON "{table}" FOR EACH STATEMENT EXECUTE FUNCTION sigtracker_bump_generation()'
                )
        elif conn.vendor == "sqlite":
            for table in watched_tables():
                for event in ("INSERT", "UPDATE", "DELETE"):
                    cursor.execute(
                        f'CREATE TRIGGER "{_trigger_name(table)}_{event.lower()}" AFTER {event} ON "{table}" '
                        f"BEGIN UPDATE {GENERATION_TABLE} SET value = value + 1 WHERE id = 1; END"
                    )


def generation_triggers_remove(conn) -> None:
    with conn.cursor() as cursor:
        for table in watched_tables():
            if conn.vendor == "postgresql":
                cursor.execute(f'DROP TRIGGER IF EXISTS "{_trigger_name(table)}" ON "{table}"')
            else:
                for event in ("insert", "update", "delete"):
                    cursor.execute(f'DROP TRIGGER IF EXISTS "{_trigger_name(table)}_{event}"')
        if conn.vendor == "postgresql":
            cursor.execute("DROP FUNCTION IF EXISTS sigtracker_bump_generation()")


def current_generation() -> int:
    """The data generation, read at most once per SIGTRACKER_PAGE_CACHE_RECHECK seconds per process."""
    now = time.monotonic()
    if _memo["value"] is not None and now - _memo["read_at"] < settings.SIGTRACKER_PAGE_CACHE_RECHECK:
        return _memo["value"]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT value FROM {GENERATION_TABLE} WHERE id = 1")
        row = cursor.fetchone()
        if row is None:  # a flushed database: start the counter again
            cursor.execute(f"INSERT INTO {GENERATION_TABLE} (id, value) VALUES (1, 0)")
            row = (0,)
    _memo.update(value=row[0], read_at=now)
    return row[0]


def _cacheable(request) -> bool:
    return (
        settings.SIGTRACKER_PAGE_CACHE_SECONDS > 0
        and request.method in ("GET", "HEAD")
        and not request.path.startswith(SKIPPED_PREFIXES)
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and not request.user.is_authenticated
    )


def _key(request) -> str:
    minute = int(time.time() // 60)
    raw = f"{current_generation()}|{minute}|{request.method}|{request.get_full_path()}"
    return "page:" + hashlib.blake2b(raw.encode(), digest_size=16).hexdigest()


class PageCacheMiddleware:
    """Serves a cached copy of a public page when the data and the minute are the same as when it was made."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not _cacheable(request):
            return self.get_response(request)
        cache = caches[settings.SIGTRACKER_PAGE_CACHE_ALIAS]
        key = _key(request)
        response = cache.get(key)
        if response is not None:
            response["X-Page-Cache"] = "hit"
            return response
        response = self.get_response(request)
        if response.status_code == 200 and not response.streaming and not response.cookies:
            if hasattr(response, "render") and not response.is_rendered:
                response.render()
            response["X-Page-Cache"] = "miss"
            cache.set(key, response, settings.SIGTRACKER_PAGE_CACHE_SECONDS)
        return response
