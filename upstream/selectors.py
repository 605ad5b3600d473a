"""Reads of the upstream sources' freshness, for the API, the footer and /healthz."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.utils import timezone

from .choices import SourceStatus
from .models import UpstreamSource
from .sources import configured_sources, public_url

__all__ = ["SourceFreshness", "upstream_footer", "upstream_source_list", "upstream_stale_sources"]


@dataclass(frozen=True)
class SourceFreshness:
    """A configured source as the API lists it; unknown values are None, never a made-up date."""

    name: str
    url: str
    commit: str | None
    commit_date: datetime.datetime | None
    status: str
    error: str
    last_success_at: datetime.datetime | None


def upstream_source_list() -> list[SourceFreshness]:
    """Each configured source (in refresh order) with what its last runs left: one query."""
    rows = {row.name: row for row in UpstreamSource.objects.all()}
    listed = []
    for source in configured_sources():
        row = rows.get(source.name)
        listed.append(
            SourceFreshness(
                name=source.name,
                url=public_url(source.url),
                commit=(row.last_commit or None) if row else None,
                commit_date=row.last_commit_date if row else None,
                status=row.status if row else SourceStatus.NEVER,
                error=row.error if row else "",
                last_success_at=row.last_success_at if row else None,
            )
        )
    return listed


def upstream_footer() -> list[SourceFreshness]:
    """The sources with an imported commit, for "upstream as of <date> (<short commit>)"."""
    return [source for source in upstream_source_list() if source.commit and source.commit_date]


def upstream_stale_sources(*, stale_after: float, now: datetime.datetime | None = None) -> list[str]:
    """Configured sources never refreshed, or last refreshed with success more than `stale_after` seconds ago."""
    now = now or timezone.now()
    stale = []
    for source in upstream_source_list():
        if source.last_success_at is None or (now - source.last_success_at).total_seconds() > stale_after:
            stale.append(source.name)
    return stale
