"""/healthz's word on upstream freshness (core.health asks the checks SIGTRACKER_HEALTH_CHECKS names)."""

from django.conf import settings

from .selectors import upstream_stale_sources


def upstream_health() -> tuple[str, bool, str]:
    """("upstream", ok, state): not ok when a configured source has not been refreshed with success within
    SIGTRACKER_UPSTREAM_STALE_AFTER seconds (or never was). Stale data is degraded service, never a 503."""
    stale = upstream_stale_sources(stale_after=settings.SIGTRACKER_UPSTREAM_STALE_AFTER)
    if stale:
        return (
            "upstream",
            False,
            f"stale: {', '.join(stale)} (no successful refresh within {settings.SIGTRACKER_UPSTREAM_STALE_AFTER} s)",
        )
    return "upstream", True, "ok"
