from io import StringIO

import pytest
from django.core.management import call_command


def test_system_checks_pass():
    call_command("check", fail_level="WARNING", stdout=StringIO())


@pytest.mark.django_db
def test_migrations_are_committed():
    call_command("makemigrations", "--check", "--dry-run", stdout=StringIO())


@pytest.mark.django_db
def test_unknown_pages_get_the_site_404(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert b"Not found" in response.content and b"/releases/1.24/" in response.content


@pytest.mark.parametrize(
    ("debug", "expected"),
    [(None, "sigtracker.settings.dev"), ("true", "sigtracker.settings.dev"), ("false", "sigtracker.settings.prod")],
)
def test_manage_py_picks_settings_by_the_shared_rule_with_the_demo_as_default(debug, expected):
    """Importing the package loads the Celery app first, whose own fallback is production: manage.py's default
    (the demo's) must still hold when DEBUG is unset."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DJANGO_SETTINGS_MODULE", "SECRET_KEY"}}
    if debug == "false":
        env["SECRET_KEY"] = "manage-py-rule-test-" + "0123456789abcdef" * 3
    if debug is not None:
        env["DEBUG"] = debug
    env.update(ALLOWED_HOSTS="localhost", SIGTRACKER_BASE_URL="https://sigtracker.example")
    code = "from django.conf import settings; print(settings.SETTINGS_MODULE)"
    shown = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.stdout.strip().splitlines()[-1:] == [expected], shown.stderr[-2000:]
