"""`manage.py demo`: prepares the database (migrate, fixtures once, admin login) and can be run again."""

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import override_settings

from community.models import Person
from devdata.fixtures import FIXTURE_FILES
from devdata.living_cycle import DEMO_NAME
from keps.models import Kep
from meetings.models import AgendaItem
from releases.models import EnhancementStatusChange, Milestone, Release, TrackedEnhancement

COUNTED = (Release, Milestone, Kep, Person, TrackedEnhancement, EnhancementStatusChange, AgendaItem)


def run_demo() -> str:
    out = StringIO()
    with override_settings(DEBUG=True):
        call_command("demo", "--no-serve", stdout=out)
    return out.getvalue()


def printed_password(output: str) -> str:
    match = re.search(r"user: admin\s+password: (\S+)", output)
    assert match, output
    return match.group(1)


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in COUNTED}


def test_demo_prepares_the_database_once_and_reuses_it(transactional_db):
    # One test for both runs: loading the fixtures is the slow part, so it happens once here.
    first = run_demo()

    assert "Database migrated." in first
    assert f"Loaded {len(FIXTURE_FILES)} fixture files." in first
    assert TrackedEnhancement.objects.filter(release__version="1.24").count() == 23
    # The release pages read stored stats: the demo computes them after loading (1.24: 6 of 23 shipped).
    from releases.models import ReleaseStats

    stats = ReleaseStats.objects.get(release__version="1.24", sig__isnull=True)
    assert (stats.tracked, stats.done) == (23, 6)
    admin = get_user_model().objects.get(username="admin")
    assert admin.is_staff and admin.is_superuser
    assert admin.check_password(printed_password(first))
    # A living cycle: the current release is the demo's, in its cycle, with a freeze ahead and KEPs at risk.
    assert "Added the demo cycle v1.28 (demo data)" in first and "Digest preview:" in first
    cycle = Release.objects.current_cycle()
    assert (cycle.release.version, cycle.release.name, cycle.in_cycle) == ("1.28", DEMO_NAME, True)
    assert TrackedEnhancement.objects.filter(release=cycle.release, status="at_risk_enhancements").exists()
    before = counts()

    second = run_demo()

    assert "Fixtures already loaded; reusing the existing database." in second
    assert "Moved the demo cycle v1.28" in second
    assert "Loaded" not in second
    assert counts() == before
    assert get_user_model().objects.filter(username="admin").count() == 1
    admin.refresh_from_db()
    assert printed_password(second) != printed_password(first)
    assert admin.check_password(printed_password(second))
    assert not admin.check_password(printed_password(first))


@pytest.mark.django_db
def test_demo_refuses_to_run_without_debug():
    with override_settings(DEBUG=False), pytest.raises(CommandError, match="DEBUG"):
        call_command("demo", "--no-serve", stdout=StringIO())
    assert not get_user_model().objects.filter(username="admin").exists()


def test_make_demo_prepares_a_fresh_sqlite_database_with_dev_settings(tmp_path):
    """What `make demo` runs on a fresh clone: the dev settings (DEBUG on, so every query goes through Django's
    debug cursor) on the embedded SQLite database, in a process of its own."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    environ = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL")}
    environ.update(DATABASE_URL=f"sqlite:///{tmp_path / 'demo.sqlite3'}", CELERY_BROKER_URL="", DEBUG="true")
    result = subprocess.run(
        [sys.executable, "manage.py", "demo", "--no-serve"],
        cwd=root,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert printed_password(result.stdout)
