"""A page cache for the public, read-only pages, invalidated by the data itself.

Every write to a table the pages read bumps a data generation (database triggers: core/migrations/0003 and
0004, and the post_migrate handler in core/apps.py for tables added later). A cached page is stored under
(scheme, host, path and query) with the generation and minute it was rendered at, and is fresh while both are
today's, so:
- any change — admin edit, import, stats recompute, bulk COPY — makes the next request render afresh;
- time-dependent parts (countdowns, "next freeze", past milestones) are at most a minute old;
- a page whose links were built from the request's host (calendar feeds) is never served to another host: a
  request with `Host: 127.0.0.1:6666` caches its own copy, not everyone's.
Only anonymous GET/HEAD requests with a 200 answer are cached; the admin, /healthz and logged-in users are not.

Stale while revalidate: when a page's copy is stale (a write, the minute turned), one request re-renders it while
the others get the stale copy at once (when only the minute turned, or only imports, syncs and stats runs wrote,
that request too gets the copy, and renders the page after its answer is sent; after an edit through the web — the
admin, the API — it waits for its render, so whoever made the edit sees it on the next page they open: the
middleware records the generation after every such request in GENERATION_TABLE's row EDIT_ROW, read with the
generation), instead of all queueing behind renders of the same page (with 50 readers,
every import or stats run used to turn every page into a queue of identical renders). One re-render per page at a
time: a lock in the cache (`cache.add`, atomic), held at most SIGTRACKER_PAGE_CACHE_LOCK_SECONDS should its
holder die. A stale copy is at most SIGTRACKER_PAGE_CACHE_STALE_SECONDS old when served (else the request renders
too), and it is only ever as old as one render: the request holding the lock replaces it. While a writer is in
flight (below), a render cannot be kept as fresh; it is kept as a stale copy (it shows what is committed, which is
all a reader may see anyway), and while the writer is still in flight a copy rendered in the same minute is served
as it is: readers of a page during a long import get the last committed data at once, and each page is rendered
about once a minute per process, as when nothing changes (a short edit committed meanwhile shows within that
minute).

The generation, and why writers never wait for each other:
- PostgreSQL: a sequence. The trigger takes a *shared* transaction-level advisory lock, then calls nextval(). Shared
  locks do not conflict and nextval takes no row lock, so writers of unrelated tables never queue behind one
  another (the old counter row made every writer wait for the one before it to commit). nextval is visible before
  the writer commits, so a page rendered in between would show old data under the new generation; hence a miss is
  cached only if, after the generation was read, no writer holds the advisory lock (one try-lock, released at
  once). That is enough: a writer whose bump we read had taken the lock before it; if the lock is free now, the
  writer has ended, and PostgreSQL makes a commit visible before it releases the transaction's locks, so the page
  rendered afterwards shows its data. While a long transaction writes (an import), renders are kept only as stale
  copies (above).
- SQLite (the demo): a counter row updated in the writer's transaction; SQLite has one writer at a time anyway.
"""

import hashlib
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import caches
from django.db import connection

from core.db.locks import try_lock_free
from core.db.triggers import counter_read, greatest, triggers_sync

GENERATION_TABLE = "sigtracker_datageneration"
GENERATION_SEQUENCE = "sigtracker_generation"
#: Must match core/migrations/0004_generation_sequence.LOCK_KEY (the triggers' function).
WRITER_LOCK_KEY = 7_316_544_023_891_537_261
TRIGGER_PREFIX = "sigtracker_gen_"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")

_memo = {"value": None, "edited": None, "read_at": 0.0}
#: The row of GENERATION_TABLE that holds the generation after the latest edit through the web (row 1 is SQLite's
#: counter).
EDIT_ROW = 2
_background_render = threading.BoundedSemaphore(1)
#: The generation of a copy rendered while a writer was in flight: never fresh, served only as a stale copy.
PROVISIONAL = -1


def watched_tables(registry=None) -> list[str]:
    """Every table (and many-to-many table) of the apps in SIGTRACKER_PAGE_CACHE_WATCHED_APPS, except those in
    SIGTRACKER_PAGE_CACHE_UNWATCHED_TABLES. `registry` is an app registry (post_migrate passes the migrated state's)."""
    if registry is None:
        from django.apps import apps as registry

    tables = set()
    for label in settings.SIGTRACKER_PAGE_CACHE_WATCHED_APPS:
        try:
            app_config = registry.get_app_config(label)
        except LookupError:  # not in this (historical) state
            continue
        for model in app_config.get_models(include_auto_created=True):
            if not model._meta.proxy and model._meta.managed:
                tables.add(model._meta.db_table)
    return sorted(tables - set(settings.SIGTRACKER_PAGE_CACHE_UNWATCHED_TABLES))


def generation_triggers_sync(conn, *, registry=None) -> tuple[list[str], list[str]]:
    """Give every watched table that exists its trigger, and take it from tables no longer watched; returns
    (tables given a trigger, tables that lost theirs). Idempotent: run after every migrate (core/apps.py), so a
    model added after 0002 is watched too. Does nothing before the migrations that make the generation ran."""
    existing_tables = set(conn.introspection.table_names())
    if GENERATION_TABLE not in existing_tables:
        return [], []
    wanted = {table for table in watched_tables(registry) if table in existing_tables}
    have = triggers_sync(conn, wanted=wanted, prefix=TRIGGER_PREFIX, counter_table=GENERATION_TABLE)
    if have is None:
        return [], []
    return sorted(wanted - have), sorted(have - wanted)


def _read_generation() -> tuple[int, int | None]:
    """(the data generation, the generation recorded after the latest edit through the web, or None)."""
    edited = f"(SELECT value FROM {GENERATION_TABLE} WHERE id = {EDIT_ROW})"
    return counter_read(connection, sequence=GENERATION_SEQUENCE, counter_table=GENERATION_TABLE, also=edited)


def _generations() -> tuple[int, int | None]:
    now = time.monotonic()
    if _memo["value"] is not None and now - _memo["read_at"] < settings.SIGTRACKER_PAGE_CACHE_RECHECK:
        return _memo["value"], _memo["edited"]
    value, edited = _read_generation()
    _memo.update(value=value, edited=edited, read_at=now)
    return value, edited


def current_generation() -> int:
    """The data generation, read at most once per SIGTRACKER_PAGE_CACHE_RECHECK seconds per process."""
    return _generations()[0]


def record_edit() -> None:
    """Note that someone has just written through the web (the admin, the API): the generation now, after their
    write, is kept in the database (every process reads it with the generation), so that a copy rendered before it is
    never served to them as a stale copy. Writes by imports, syncs and stats runs do not call this."""
    generation, _ = _read_generation()
    larger = greatest(connection)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {GENERATION_TABLE} (id, value) VALUES ({EDIT_ROW}, %s) ON CONFLICT (id) DO UPDATE "
            f"SET value = {larger}({GENERATION_TABLE}.value, excluded.value)",
            [generation],
        )
    _memo.update(value=None, read_at=0.0)


def _edited_since(entry: dict, edited: int | None) -> bool:
    """Whether an edit through the web may be missing from a cached copy: it was recorded after the generation the
    copy was rendered at (a provisional copy was rendered while some write was in flight, maybe that edit's own)."""
    if edited is None:
        return False
    if entry["generation"] == PROVISIONAL:
        return edited >= entry.get("read_generation", edited)
    return edited > entry["generation"]


def no_writer_in_flight() -> bool:
    """True when no other transaction has written a watched table without having ended (PostgreSQL); always true on
    SQLite, whose counter is transactional. Our own transaction's writes do not count (a session's locks never
    conflict with each other). The exclusive try-lock is held only for the length of this one statement."""
    return try_lock_free(WRITER_LOCK_KEY)


def _cacheable(request) -> bool:
    return (
        settings.SIGTRACKER_PAGE_CACHE_SECONDS > 0
        and request.method in ("GET", "HEAD")
        # `path_info`, which is what the URL resolver routes: `path` starts with SCRIPT_NAME, which a client can set.
        and not request.path_info.startswith(tuple(settings.SIGTRACKER_PAGE_CACHE_SKIPPED_PREFIXES))
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and not request.user.is_authenticated
    )


def _key(request) -> str:
    # Scheme and host (with its port): pages may carry absolute links built from them (calendar feeds).
    raw = f"{request.method}|{request.scheme}://{request.get_host()}{request.get_full_path()}"
    return "page:" + hashlib.blake2b(raw.encode(), digest_size=16).hexdigest()


def _wall_clock() -> float:
    return time.time()


_clock: Callable[[], float] = _wall_clock


def set_clock(clock: Callable[[], float] | None) -> Callable[[], float]:
    """Make the cache read the time (seconds since the epoch: a copy's minute and its age) from `clock`; None puts
    the wall clock back. Returns the clock it replaced, so that a caller (a test holding the minute still) can
    restore it."""
    global _clock
    previous, _clock = _clock, clock or _wall_clock
    return previous


def _minute() -> int:
    return int(_clock() // 60)


def _after_close(response, callback: Callable[[], None]) -> None:
    """Run `callback` once the server has sent `response` and closed it (`HttpResponse.close()`, which every WSGI
    server and Django's test client call at the end of a request), after the response's own closing."""
    close, pending = response.close, [callback]

    def close_then_callback():
        try:
            close()
        finally:
            while pending:  # once, should the response be closed twice
                pending.pop()()

    response.close = close_then_callback


class PageCacheMiddleware:
    """Serves a cached copy of a public page when the data and the minute are the same as when it was made."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not _cacheable(request):
            response = self.get_response(request)
            if (
                settings.SIGTRACKER_PAGE_CACHE_SECONDS > 0
                and request.method not in SAFE_METHODS
                and response.status_code < 400
            ):
                record_edit()
            return response
        cache = caches[settings.SIGTRACKER_PAGE_CACHE_ALIAS]
        (generation, edited), minute = _generations(), _minute()
        key = _key(request)
        entry = cache.get(key)
        if entry is not None and (entry["generation"], entry["minute"]) == (generation, minute):
            response = entry["response"]
            response["X-Page-Cache"] = "hit"
            return response
        stale = entry is not None and _clock() - entry["stored_at"] <= settings.SIGTRACKER_PAGE_CACHE_STALE_SECONDS
        lock = f"{key}:rendering"
        if stale and entry["generation"] == generation:
            # Only the minute turned: the data is the same, so even the request that re-renders the page gets the
            # copy at once, and renders it after its answer has gone (when the server closes the response).
            return self._stale_then_revalidate(request, cache, entry, key, generation, minute, lock)
        if stale and entry["minute"] == minute and not no_writer_in_flight():
            # A writer is in flight (an import): what readers may see is what was committed, and this minute's
            # copy shows that as of its render; re-rendering on every request would only queue them up.
            response = entry["response"]
            response["X-Page-Cache"] = "stale"
            return response
        if stale and not _edited_since(entry, edited):
            # Only imports, syncs and stats runs wrote since the copy was made, no reader's edit: as when the minute
            # turned, nobody waits for the re-render (a reader cannot tell the copy from one served a moment earlier).
            return self._stale_then_revalidate(request, cache, entry, key, generation, minute, lock)
        # Someone is re-rendering this page right now: the copy they replace is good enough meanwhile.
        if stale and not cache.add(lock, 1, settings.SIGTRACKER_PAGE_CACHE_LOCK_SECONDS):
            response = entry["response"]
            response["X-Page-Cache"] = "stale"
            return response
        try:
            return self._render(request, cache, key, generation, minute)
        finally:
            if stale:
                cache.delete(lock)

    def _stale_then_revalidate(self, request, cache, entry: dict, key: str, generation: int, minute: int, lock: str):
        response = entry["response"]
        response["X-Page-Cache"] = "stale"
        # One re-render after an answer at a time per process: an import makes every page stale at once, and a
        # thread per page rendering beside the ones serving copies would hold the GIL and the server's threads
        # from them. A page not re-rendered now is by the next request that finds this process idle.
        if _background_render.acquire(blocking=False):
            if cache.add(lock, 1, settings.SIGTRACKER_PAGE_CACHE_LOCK_SECONDS):
                _after_close(response, lambda: self._revalidate(request, cache, key, generation, minute, lock))
            else:
                _background_render.release()
        return response

    def _revalidate(self, request, cache, key: str, generation: int, minute: int, lock: str) -> None:
        """Re-render a page whose copy is stale, after the answer that served that copy was sent."""
        try:
            self._render(request, cache, key, generation, minute).close()
        finally:
            cache.delete(lock)
            _background_render.release()

    def _render(self, request, cache, key: str, generation: int, minute: int):
        # Checked after the generation was read and before the page reads anything (see the module docstring).
        storable = no_writer_in_flight()
        response = self.get_response(request)
        if response.status_code == 200 and not response.streaming and not response.cookies:
            if hasattr(response, "render") and not response.is_rendered:
                response.render()
            # A write was in flight: rendered, and kept only as a stale copy for others meanwhile.
            response["X-Page-Cache"] = "miss" if storable else "skip"
            entry = {
                "generation": generation if storable else PROVISIONAL,
                "read_generation": generation,
                "minute": minute,
                "stored_at": _clock(),
                "response": response,
            }
            cache.set(key, entry, settings.SIGTRACKER_PAGE_CACHE_SECONDS)
        return response
