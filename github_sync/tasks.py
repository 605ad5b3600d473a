"""Celery task of the GitHub sync: a thin wrapper that calls the sync services.

Safe to run twice (syncs write only what differs), so `acks_late`: a worker that dies mid-task leaves its message to
be redelivered rather than lost. Without CELERY_BROKER_URL it runs eagerly in-process. It runs on the `github`
queue (CELERY_TASK_ROUTES), with soft and hard time limits: past the soft one the task gets SoftTimeLimitExceeded
and cleans up on its way out; past the hard one the worker kills the child process.
"""

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from github_sync import metrics

logger = logging.getLogger(__name__)


# The sync stops itself at GITHUB_SYNC_DEADLINE; these limits are the backstop (a sync stuck in the database, say).
# Past the soft one the sync's lock is released on the way out; past the hard one the child dies, and its database
# session, and the lock with it. Either way the next beat's sync starts cleanly.
@shared_task(
    acks_late=True,
    soft_time_limit=int(settings.GITHUB_SYNC_DEADLINE) + 60,
    time_limit=int(settings.GITHUB_SYNC_DEADLINE) + 120,
)
def sync_github_current_release() -> str:
    """Every 15 minutes (beat): sync the current release from its GitHub tracking issues, then its board.

    Safe to run twice, or beside a manual `sync_github`: syncs of one release take a lock and write only what
    differs from the database. GitHub failures are logged, not retried here: the next beat is the retry. The
    labels and the board share one client and one deadline (GITHUB_SYNC_DEADLINE from the task's start), so the
    soft time limit (that deadline plus a minute) cannot fire inside either.
    """
    from github_sync.services import github_sync

    if not settings.GITHUB_TOKEN:
        logger.info("GitHub sync skipped: GITHUB_TOKEN is not set")
        return "skipped: no GITHUB_TOKEN"
    try:
        client = github_sync.github_client()
    except github_sync.GitHubSyncError as exc:
        logger.warning("GitHub sync failed: %s", exc)
        return f"failed: {exc}"
    with client:
        client.start_deadline(float(settings.GITHUB_SYNC_DEADLINE))
        try:
            report = github_sync.github_current_release_sync(client=client)
        except (github_sync.GitHubSyncError, github_sync.GitHubError) as exc:
            logger.warning("GitHub sync failed: %s", exc)
            return f"failed: {exc}"
        except SoftTimeLimitExceeded:
            logger.warning("GitHub sync cancelled at its time limit; the next beat starts again")
            return "cancelled: time limit"
        if report is None:
            return "skipped: no release"
        logger.info("GitHub sync: %s", report.summary())
        for line in report.skipped:
            logger.warning("GitHub sync skipped %s", line)
        if report.stopped:
            logger.warning("GitHub sync stopped: %s", report.stopped)
        else:
            metrics.github_sync_succeeded(version=report.version)
        return report.summary() + _board_sync(client)


def _board_sync(client) -> str:
    """The current release's tracking board after its labels (the board wins for status), within the labels'
    deadline; failures logged in one line."""
    from github_sync.services import board_sync

    try:
        board = board_sync.board_current_release_sync(client=client)
    except (board_sync.GitHubSyncError, board_sync.GitHubError) as exc:
        logger.warning("Board sync failed: %s", exc)
        return f" Board: failed: {exc}"
    except SoftTimeLimitExceeded:
        logger.warning("Board sync cancelled at its time limit; the next beat starts again")
        return " Board: cancelled: time limit"
    if board is None:
        return ""
    logger.info("Board sync: %s", board.summary())
    return " " + board.summary()
