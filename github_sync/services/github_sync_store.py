"""What a sync keeps between runs and processes: the ETag cache of the pages it read (a 304 costs nothing) and
the per-release lock."""

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from urllib.parse import urlparse

from django.utils import timezone

from core.db.locks import LockTimeout, session_lock
from core.db.upsert import upsert
from github_sync.github import (
    CachedPage,
    GitHubClient,
    GitHubDeadlineExceeded,
)
from github_sync.models import GitHubCachedResponse

from .github_sync_base import LOCK_NAMESPACE, LOCK_WAIT_SECONDS, SyncReport

# --- the ETag cache ---------------------------------------------------------------------------------------------


def _resource(url: str) -> str:
    return urlparse(url).path[:300]


def load_cache(client: GitHubClient, resources: list[str]) -> None:
    """Load the stored pages of `resources` (paths under the API's base, "/repos/o/r/issues") into the client.

    Pages are stored by the path of their full URL, which under GitHub Enterprise Server's `https://HOST/api/v3`
    starts with the base's own path; the same is prefixed here, or no page would ever be found there."""
    base_path = urlparse(client.api_url).path.rstrip("/")
    resources = [f"{base_path}{resource}" for resource in resources]
    for start in range(0, len(resources), 500):
        for row in GitHubCachedResponse.objects.filter(resource__in=resources[start : start + 500]).values_list(
            "url", "etag", "body", "next_url"
        ):
            client.cache[row[0]] = CachedPage(url=row[0], etag=row[1], body=row[2], next_url=row[3])


def store_pages(pages: list[CachedPage]) -> None:
    if not pages:
        return
    now = timezone.now()
    upsert(
        GitHubCachedResponse,
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


@contextmanager
def release_lock(release_id: int, *, timeout: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """One sync of a release at a time (beat and a manual run): the second waits up to `timeout` seconds, then
    finds little to do; past it, GitHubDeadlineExceeded. A worker killed mid-sync loses its connection, and
    PostgreSQL releases the lock with it (`core.db.locks.session_lock`)."""
    with ExitStack() as held:
        try:
            held.enter_context(session_lock(LOCK_NAMESPACE, release_id, timeout=timeout))
        except LockTimeout:
            raise GitHubDeadlineExceeded(
                f"another sync of this release has held its lock for over {timeout:.0f} s; not started."
            ) from None
        yield
