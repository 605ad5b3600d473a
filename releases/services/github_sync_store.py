"""What a sync keeps between runs and processes: the ETag cache of the pages it read (a 304 costs nothing) and
the per-release lock."""

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import urlparse

from django.db import connection
from django.utils import timezone

from releases.github import (
    CachedPage,
    GitHubClient,
    GitHubDeadlineExceeded,
)
from releases.models import (
    GitHubCachedResponse,
)

from .github_sync_base import LOCK_NAMESPACE, LOCK_WAIT_SECONDS, SyncReport

# --- the ETag cache ---------------------------------------------------------------------------------------------


def _resource(url: str) -> str:
    return urlparse(url).path[:300]


def load_cache(client: GitHubClient, resources: list[str]) -> None:
    for start in range(0, len(resources), 500):
        for row in GitHubCachedResponse.objects.filter(resource__in=resources[start : start + 500]).values_list(
            "url", "etag", "body", "next_url"
        ):
            client.cache[row[0]] = CachedPage(url=row[0], etag=row[1], body=row[2], next_url=row[3])


def store_pages(pages: list[CachedPage]) -> None:
    if not pages:
        return
    now = timezone.now()
    if connection.vendor == "postgresql":
        # executemany with one JSON text parameter per page: bulk_create's UNNEST arrays would escape every body
        # into an array literal in Python, which cost over a second for one release's pages in the sync bench.
        table = connection.ops.quote_name(GitHubCachedResponse._meta.db_table)
        with connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {table} (url, resource, etag, body, next_url, fetched_at) "
                "VALUES (%s, %s, %s, %s::jsonb, %s, %s) ON CONFLICT (url) DO UPDATE SET etag = EXCLUDED.etag, "
                "body = EXCLUDED.body, next_url = EXCLUDED.next_url, fetched_at = EXCLUDED.fetched_at",
                [
                    (page.url, _resource(page.url), page.etag, json.dumps(page.body), page.next_url or "", now)
                    for page in pages
                ],
            )
        return
    GitHubCachedResponse.objects.bulk_create(
        [
            GitHubCachedResponse(
                url=page.url,
                resource=_resource(page.url),
                etag=page.etag,
                body=page.body,
                next_url=page.next_url or "",
                fetched_at=now,
            )
            for page in pages
        ],
        update_conflicts=True,
        unique_fields=["url"],
        update_fields=["etag", "body", "next_url", "fetched_at"],
    )


def skip_unchanged(report: SyncReport, line: str, echo: Callable[[str], None] | None) -> None:
    head, _, rest = line.partition(": ")
    if rest.startswith(head + ":"):
        line = rest  # the parser named the issue already
    report.skipped.append(line)
    if echo:
        echo(line)


# --- the lock ---------------------------------------------------------------------------------------------------

_local_locks: dict[int, threading.Lock] = {}


@contextmanager
def release_lock(release_id: int, *, timeout: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """One sync of a release at a time (beat and a manual run): the second waits up to `timeout` seconds, then
    finds little to do; past it, GitHubDeadlineExceeded. The lock is the session's: a worker killed mid-sync
    loses its connection, and PostgreSQL releases the lock with it."""
    if connection.vendor == "postgresql":
        ends = time.monotonic() + timeout
        with connection.cursor() as cursor:
            while True:
                cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_NAMESPACE, release_id])
                if cursor.fetchone()[0]:
                    break
                if time.monotonic() >= ends:
                    raise GitHubDeadlineExceeded(
                        f"another sync of this release has held its lock for over {timeout:.0f} s; not started."
                    )
                time.sleep(0.25)
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_NAMESPACE, release_id])
    else:
        # SQLite serialises writers anyway; this keeps two threads of one process from interleaving.
        with _local_locks.setdefault(release_id, threading.Lock()):
            yield
