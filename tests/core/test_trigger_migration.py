"""The page cache's triggers follow the models on an existing database, not only on a fresh one.

A database is migrated as it stood when the trigger migration was written; then a release adds a model (a test
app, installed by tests/core/trigger_settings.py) and the database is migrated forward. Writes to the new
table must make cached pages fresh, as writes to every other watched table do.
"""

import pytest

from tests.scratch_db import manage, manage_steps

pytestmark = pytest.mark.django_db

# Run in the migrated database: a page, the same page again, then the same page after a write to the new table
# (written outside any web request, as a job writes: no longer a hit, the copy goes out once more while re-rendered).
# The minute is held still: a copy is also stale once the minute turns, and a first render in a new process can
# take seconds, so a probe begun late in a minute read "stale" where it meant "hit" (seen in CI).
PROBE = """
from django.test import Client, override_settings
from core import page_cache
from tests.core.trigger_app.models import Widget

client = Client(HTTP_HOST="127.0.0.1")
page_cache.set_clock(lambda: 30.0)
with override_settings(SIGTRACKER_PAGE_CACHE_SECONDS=300, SIGTRACKER_PAGE_CACHE_RECHECK=0):
    seen = [client.get("/releases/")["X-Page-Cache"], client.get("/releases/")["X-Page-Cache"]]
    Widget.objects.create(name="new")
    seen.append(client.get("/releases/")["X-Page-Cache"])
print("PROBE", *seen)
"""


def test_a_model_added_after_the_trigger_migration_invalidates_the_cache(scratch_database_url):
    # The database as it stood when the triggers were first installed...
    manage(scratch_database_url, "sigtracker.settings.test", "migrate", "core", "0003", "--noinput", "-v0")
    # ...then a release adds a model to a watched app, and the deploy migrates forward.
    settings_module = "tests.core.trigger_settings"
    output = manage_steps(
        scratch_database_url, settings_module, ("migrate", "--noinput", "-v0"), ("shell", "-c", PROBE)
    )
    assert _probed(output) == ["miss", "hit", "stale"], output
    # Migrating again changes nothing (the post_migrate handler is idempotent); a process of its own, so the probe
    # starts from an empty local cache again.
    output = manage_steps(
        scratch_database_url, settings_module, ("migrate", "--noinput", "-v0"), ("shell", "-c", PROBE)
    )
    assert _probed(output) == ["miss", "hit", "stale"], output


def test_a_database_from_before_the_move_to_core_migrates_and_keeps_invalidating(scratch_database_url):
    """Databases migrated while the page cache's tables belonged to the config package ("sigtracker" migrations)
    already hold the tables, the counter row, the sequence and the triggers; core's migrations then run over them.
    Simulated by forgetting core's migrations (--fake zero) while keeping everything they made."""
    settings_module = "tests.core.trigger_settings"
    manage_steps(
        scratch_database_url,
        settings_module,
        ("migrate", "--noinput", "-v0"),
        ("migrate", "core", "zero", "--fake", "--noinput", "-v0"),
    )
    output = manage_steps(
        scratch_database_url, settings_module, ("migrate", "--noinput", "-v0"), ("shell", "-c", PROBE)
    )
    assert _probed(output) == ["miss", "hit", "stale"], output


def _probed(output: str) -> list[str]:
    return next(line for line in output.splitlines() if line.startswith("PROBE")).split()[1:]
