"""The hourly refresh, on the `imports` queue (never the reminders'): thin, safe to run twice (a second run at once
waits briefly then skips; a later one finds nothing to change)."""

import logging

from celery import shared_task

from .services import RefreshBusy, upstream_refresh

logger = logging.getLogger(__name__)


@shared_task(ignore_result=True, soft_time_limit=50 * 60, time_limit=55 * 60)
def refresh_upstream(names: list[str] | None = None) -> None:
    """Refresh the configured sources (`names`, or all); each outcome is on record (admin, API, metrics), failures
    logged."""
    try:
        results = upstream_refresh(names=names or ())
    except RefreshBusy as exc:
        logger.info("upstream refresh skipped: %s", exc)
        return
    for result in results:
        if not result.ok:
            logger.warning(
                "upstream %s: %s %s", result.name, result.outcome, result.error or f"{len(result.skipped)} skipped"
            )
