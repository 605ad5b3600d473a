"""A scratch database beside the test database, and `manage.py` run against it in a process of its own: for
tests that migrate a database from an older state, as a deploy does."""

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


def manage(database_url: str, settings_module: str, *args: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    environ.update(DJANGO_SETTINGS_MODULE=settings_module, DATABASE_URL=database_url)
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture
def scratch_database_url(tmp_path):
    """An empty database of the same kind as the test database, dropped afterwards."""
    if connection.vendor != "postgresql":
        yield f"sqlite:///{tmp_path / 'old.sqlite3'}"
        return
    db = connection.settings_dict
    name = f"{db['NAME']}_triggers"[:63]
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
