"""The test settings plus a model added later to a watched app (tests/core/test_trigger_migration.py)."""

from sigtracker.settings.test import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.core.trigger_app"]  # noqa: F405
SIGTRACKER_PAGE_CACHE_WATCHED_APPS = [*SIGTRACKER_PAGE_CACHE_WATCHED_APPS, "trigger_app"]  # noqa: F405
