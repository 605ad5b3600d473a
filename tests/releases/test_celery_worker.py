"""Stats end to end through real components: Celery worker subprocesses on the Redis broker and the test database
on PostgreSQL, with this process acting as the web process whose edits the worker's stats recomputes must all pick
up. (The reminders' worker tests: tests/reminders/test_celery_worker.py.)"""

import time

import pytest

from releases.models import ReleaseStats
from tests.reminder_board import FREEZE, HOUR

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

WEEK_BEFORE = (FREEZE - 168 * HOUR).isoformat()


@pytest.fixture
def web_process(celery_worker, settings):
    """This test process as a production web process beside the worker: tasks are published to the worker's
    broker (not run eagerly) and the shared cache is the broker's Redis, as the worker's settings make it."""
    from sigtracker.celery import app
    from sigtracker.settings.base import shared_cache
    from tests.brokers import drop_broker_connections

    url = celery_worker.client.conf.broker_url
    settings.CELERY_BROKER_URL = url
    settings.CACHES = {**settings.CACHES, "shared": shared_cache(url)}
    settings.SIGTRACKER_STATS_DEBOUNCE_SECONDS = 1
    before = app.conf.broker_url, app.conf.task_always_eager
    app.conf.broker_url, app.conf.task_always_eager = url, False
    drop_broker_connections()
    try:
        yield
    finally:
        app.conf.broker_url, app.conf.task_always_eager = before
        drop_broker_connections()


def wait_for_done(release, count, timeout=20):
    deadline = time.monotonic() + timeout
    while not ReleaseStats.objects.filter(release=release, sig=None, done=count).exists():
        assert time.monotonic() < deadline, f"the stats never showed {count} done within {timeout} s"
        time.sleep(0.1)


def test_two_edits_seconds_apart_are_both_computed_by_the_worker(board, celery_worker, web_process):
    """The debounce mark lived in each process's memory, so the worker's clearing it did not reach
    the web process, and a second edit a few seconds after the first queued nothing for five minutes."""
    from releases.choices import EnhancementStatus
    from releases.services import tracked_enhancement_set_status

    celery_worker()
    tracked_enhancement_set_status(tracked_enhancement=board.rows[0], status=EnhancementStatus.DONE)
    wait_for_done(board.release, 1)
    time.sleep(2)
    tracked_enhancement_set_status(tracked_enhancement=board.rows[1], status=EnhancementStatus.DONE)
    wait_for_done(board.release, 2)


def test_with_the_debounce_cache_unreachable_edits_are_still_queued(
    board,
    celery_worker,
    web_process,
    settings,
    caplog,
):
    """The web process cannot reach the cache's Redis (a closed port) while the broker is up: it cannot tell
    whether a job is queued, so each edit queues one, and the worker computes them."""
    from releases.choices import EnhancementStatus
    from releases.services import tracked_enhancement_set_status
    from sigtracker.settings.base import shared_cache
    from tests.live_services import free_port

    settings.CACHES = {**settings.CACHES, "shared": shared_cache(f"redis://127.0.0.1:{free_port()}/0")}
    celery_worker()
    tracked_enhancement_set_status(tracked_enhancement=board.rows[0], status=EnhancementStatus.DONE)
    tracked_enhancement_set_status(tracked_enhancement=board.rows[1], status=EnhancementStatus.DONE)
    wait_for_done(board.release, 2)
    assert caplog.text.count("stats debounce cache unreachable; queueing") == 2
