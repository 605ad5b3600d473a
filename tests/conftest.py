"""Shared test set-up.

CI (`.ci/run`) sets SIGTRACKER_REQUIRE_SERVICES=1: then the suite must run on PostgreSQL with Redis
reachable, and stops at once if either is missing. On a bare laptop, tests that need a real service
skip with the reason instead.
"""

import os
import socket
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.conf import settings

from tests.scratch_db import scratch_database_url  # noqa: F401  (a fixture for migration tests)

REQUIRE_SERVICES = os.environ.get("SIGTRACKER_REQUIRE_SERVICES") == "1"
SHARED_DIR = Path(__file__).resolve().parent.parent.parent / "shared"
UPSTREAM_DIR = SHARED_DIR / "data" / "upstream"


def _per_worker(url: str) -> str:
    """The Redis database of this pytest-xdist worker: the one named for gw0, the next ones for gw1, gw2, ...
    (wrapping at Redis's 16), so parallel workers never flush or consume each other's queues and keys.
    A run without xdist keeps the database as given."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return url
    parsed = urlparse(url)
    db = (int(parsed.path.strip("/") or 0) + int(worker[2:])) % 16
    return parsed._replace(path=f"/{db}").geturl()


_STARTED = pytest.StashKey[float]()
TEST_REDIS_URL = _per_worker(os.environ.get("SIGTRACKER_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"))
# Fixtures that need a real service (PostgreSQL, Redis, a redis-server or Celery worker of a test's own) or a
# browser: a test using one is marked `services` or `browser` here, so `-m "not services and not browser"`
# (make test-fast) leaves out exactly those.
SERVICE_FIXTURES = {"redis_url", "postgres_only", "celery_worker", "broker", "web_process"}
BROWSER_FIXTURES = {"browser", "page"}


def _reachable(url: str) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 6379), timeout=1):
            return True
    except OSError:
        return False


def pytest_configure(config):
    config.stash[_STARTED] = time.monotonic()


def pytest_terminal_summary(terminalreporter, config):
    """The suite's wall time (collection and test-database set-up included) and how busy the machine was, so that
    timings from different runs can be compared."""
    if hasattr(config, "workerinput"):
        return
    elapsed = time.monotonic() - config.stash[_STARTED]
    workers = getattr(config.option, "numprocesses", None) or 1
    terminalreporter.write_line(
        f"suite wall time: {elapsed:.0f} s on {workers} worker(s), {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f}"
    )


def pytest_sessionstart(session):
    if not REQUIRE_SERVICES:
        return
    vendor = settings.DATABASES["default"]["ENGINE"]
    if "postgresql" not in vendor:
        pytest.exit(f"SIGTRACKER_REQUIRE_SERVICES=1 but the database is {vendor}; set DATABASE_URL to PostgreSQL.", 3)
    db = settings.DATABASES["default"]
    if not _reachable(f"postgresql://{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"):
        pytest.exit("SIGTRACKER_REQUIRE_SERVICES=1 but PostgreSQL is unreachable.", 3)
    if not _reachable(TEST_REDIS_URL):
        pytest.exit(f"SIGTRACKER_REQUIRE_SERVICES=1 but Redis at {TEST_REDIS_URL} is unreachable.", 3)


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & SERVICE_FIXTURES:
            item.add_marker(pytest.mark.services)
        if names & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)


def require_service(available: bool, reason: str):
    """Skip on a bare laptop, fail in CI."""
    if available:
        return
    if REQUIRE_SERVICES:
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


@pytest.fixture
def redis_url():
    require_service(_reachable(TEST_REDIS_URL), f"Redis not reachable at {TEST_REDIS_URL}")
    return TEST_REDIS_URL


@pytest.fixture
def postgres_only(db):
    from django.db import connection

    require_service(connection.vendor == "postgresql", "needs PostgreSQL (set DATABASE_URL)")


@pytest.fixture
def upstream_dir():
    """The real upstream samples in ../shared; tests that read them skip on a laptop without them, fail in CI."""
    require_service(UPSTREAM_DIR.is_dir(), f"upstream samples not found at {UPSTREAM_DIR}")
    return UPSTREAM_DIR


@pytest.fixture
def seeds_dir():
    """The seed documents in ../shared; as `upstream_dir`, a skip on a laptop and a failure in CI."""
    path = SHARED_DIR / "seeds"
    require_service(path.is_dir(), f"seed documents not found at {path}")
    return path


@pytest.fixture
def board():
    """The reminder tests' board (tests/reminder_board.py): v1.26, SIG Node, three KEPs around a freeze."""
    from tests.reminder_board import make_board

    return make_board()


@pytest.fixture
def github_oauth(settings):
    """The stand-in GitHub OAuth server (tests/people/oauth_standin.py), and settings pointing sign-in at it."""
    from tests.people.oauth_standin import StandInOAuth

    standin = StandInOAuth().start()
    settings.SOCIALACCOUNT_PROVIDERS = {
        "github": {
            **settings.SOCIALACCOUNT_PROVIDERS["github"],
            "APP": {"client_id": standin.client_id, "secret": standin.client_secret},
            "GITHUB_URL": standin.url,
        }
    }
    yield standin
    standin.stop()


@pytest.fixture(autouse=True)
def page_cache_minute_starts_with_the_test():
    """A cached page is stale once the minute turns as well as when the data changes; its key's minute counts from
    the start of each test, so a test expecting a hit on its second request is not handed a stale copy because the
    wall-clock minute turned between them (seen in CI when a first render took seconds). A test that moves the
    clock on, by patching time.time, still turns it."""
    import time

    from core import page_cache

    offset = time.time() % 60
    previous = page_cache.set_clock(lambda: time.time() - offset)
    yield
    page_cache.set_clock(previous)
