"""Retros' background work: the daily follow-through sync of action items' GitHub issues (on the github queue)."""

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

logger = logging.getLogger(__name__)


# The sync stops itself at GITHUB_SYNC_DEADLINE; the time limits are the backstop.
@shared_task(
    acks_late=True,
    soft_time_limit=int(settings.GITHUB_SYNC_DEADLINE) + 60,
    time_limit=int(settings.GITHUB_SYNC_DEADLINE) + 120,
)
def sync_action_items() -> str:
    """Daily (beat): follow linked issues of action items. Safe to run twice: a status is written only when it
    differs, and unchanged issues answer 304. Failures are logged; the next day's run is the retry."""
    from github_sync.github.client import GitHubError

    from .services.actions import action_items_sync

    if not settings.GITHUB_TOKEN:
        logger.info("Action item sync skipped: GITHUB_TOKEN is not set")
        return "skipped: no GITHUB_TOKEN"
    try:
        result = action_items_sync()
    except GitHubError as exc:
        logger.warning("Action item sync failed: %s", exc)
        return f"failed: {exc}"
    except SoftTimeLimitExceeded:
        return "cancelled: time limit"
    for line in result.failed:
        logger.warning("Action item sync: %s", line)
    return f"{result.read} issues read, {result.unchanged} unchanged, {result.changed} changed"
