"""A scratch database beside the test database, and `manage.py` run against it in a process of its own: for
tests that migrate a database from an older state, as a deploy does."""

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


def manage(database_url: str, settings_module: str, *args: str) -> str:
    """`manage.py <args>` against the database, in a process of its own; its standard output."""
    return _run(database_url, settings_module, [sys.executable, "manage.py", *args])


#: Several management commands, one after the other in one process, as `call_command` runs them: the project is
#: imported once rather than once a command (about 2 s a process on 2 cores), and Django's command-line parsing
#: reads each command's arguments as `manage.py` would.
_STEPS = """
import json, sys
import django
from django.core.management import call_command
django.setup()
for argv in json.loads(sys.argv[1]):
    call_command(*argv)
"""


def manage_steps(database_url: str, settings_module: str, *steps: tuple[str, ...]) -> str:
    """Each step, a `manage.py` command line such as `("migrate", "core", "0003", "--noinput")`, run in order in
    one process against the database; their standard output. A process of its own still separates the states a
    test compares (before and after a deploy), as each deploy starts afresh."""
    return _run(database_url, settings_module, [sys.executable, "-c", _STEPS, json.dumps(steps)])


def _run(database_url: str, settings_module: str, command: list[str]) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    environ.update(DJANGO_SETTINGS_MODULE=settings_module, DATABASE_URL=database_url)
    result = subprocess.run(command, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@contextlib.contextmanager
def postgresql_scratch_database(suffix: str):
    """The URL of an empty PostgreSQL database named after the test database plus `suffix` (one per xdist worker,
    as the test database is), dropped afterwards."""
    db = connection.settings_dict
    name = f"{db['NAME']}{suffix}"[:63]
    params = dict(host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], dbname="postgres")
    if db.get("PASSWORD"):
        params["password"] = db["PASSWORD"]
    with psycopg.connect(**params, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    try:
        yield f"postgres://{db['USER']}{password}@{params['host']}:{params['port']}/{name}"
    finally:
        with psycopg.connect(**params, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def scratch_database_url(tmp_path):
    """An empty database of the same kind as the test database, dropped afterwards."""
    if connection.vendor != "postgresql":
        yield f"sqlite:///{tmp_path / 'old.sqlite3'}"
        return
    with postgresql_scratch_database("_triggers") as url:
        yield url
