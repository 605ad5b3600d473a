"""Shared test set-up.

CI (`.ci/run`) sets SIGTRACKER_REQUIRE_SERVICES=1: then the suite must run on PostgreSQL with Redis
reachable, and stops at once if either is missing. On a bare laptop, tests that need a real service
skip with the reason instead.
"""

import os
import socket
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.conf import settings

REQUIRE_SERVICES = os.environ.get("SIGTRACKER_REQUIRE_SERVICES") == "1"
SHARED_DIR = Path(__file__).resolve().parent.parent.parent / "shared"
UPSTREAM_DIR = SHARED_DIR / "data" / "upstream"
TEST_REDIS_URL = os.environ.get("SIGTRACKER_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _reachable(url: str) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 6379), timeout=1):
            return True
    except OSError:
        return False


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
    """The real upstream samples in ../shared; tests that read them skip when they are absent."""
    if not UPSTREAM_DIR.is_dir():
        pytest.skip(f"upstream samples not found at {UPSTREAM_DIR}")
    return UPSTREAM_DIR


@pytest.fixture
def seeds_dir():
    path = SHARED_DIR / "seeds"
    if not path.is_dir():
        pytest.skip(f"seed documents not found at {path}")
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
