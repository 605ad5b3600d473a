"""Production settings, /healthz, private mode and the admin login lockout."""

import importlib
import os
import secrets
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]


def _production_settings(monkeypatch, **env):
    """`sigtracker.settings.prod` as production would import it under `env`, in this process: a fresh import of it
    and of `base` (both read the environment at import time), put back as they were after the test."""
    import sigtracker.settings

    # The browser tests' escape hatch from async safety is this process's, never production's (async.E001).
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("prod", "base"):
        monkeypatch.delitem(sys.modules, f"sigtracker.settings.{name}", raising=False)
        monkeypatch.delattr(sigtracker.settings, name, raising=False)
    return importlib.import_module("sigtracker.settings.prod")


# What stays the test run's own while the deploy check reads production's settings: swapping these would rebuild
# the app registry, the database connections or the caches under the running suite, and none is a deploy check's.
KEPT_FOR_THE_CHECK = {"INSTALLED_APPS", "DATABASES", "CACHES", "LOGGING", "STORAGES", "TEMPLATES"}


# Named ids: a random key in a test id differs between pytest-xdist workers, which then refuse to run.
@pytest.mark.parametrize(
    "secret_key", [secrets.token_urlsafe(50), secrets.token_urlsafe(38)[:50]], ids=["67 characters", "50 characters"]
)
def test_check_deploy_is_clean_with_real_secret_and_hosts(secret_key, monkeypatch):
    # The shortest key production accepts passes `check --deploy` too: the guard and the check agree.
    prod = _production_settings(
        monkeypatch,
        DEBUG="false",
        SECRET_KEY=secret_key,
        ALLOWED_HOSTS="sigtracker.example.org",
        SIGTRACKER_BASE_URL="https://sigtracker.example.org",
    )
    production = {name: getattr(prod, name) for name in dir(prod) if name.isupper() and name not in KEPT_FOR_THE_CHECK}
    out = StringIO()
    with override_settings(**production):
        call_command("check", "--deploy", "--fail-level", "WARNING", stdout=out)
    assert "no issues" in out.getvalue()


def test_check_deploy_fails_on_what_production_would_not_want(monkeypatch):
    """The in-process check above reads the settings it is given: HTTPS off is what `check --deploy` warns of."""
    prod = _production_settings(
        monkeypatch,
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="sigtracker.example.org",
        SIGTRACKER_BASE_URL="https://sigtracker.example.org",
        SIGTRACKER_HTTPS="false",
    )
    production = {name: getattr(prod, name) for name in dir(prod) if name.isupper() and name not in KEPT_FOR_THE_CHECK}
    with override_settings(**production), pytest.raises(SystemCheckError, match="SECURE_SSL_REDIRECT"):
        call_command("check", "--deploy", "--fail-level", "WARNING", stdout=StringIO(), stderr=StringIO())


@pytest.mark.parametrize(
    "env,message",
    [
        ({"SECRET_KEY": ""}, "SECRET_KEY"),
        ({"SECRET_KEY": "short"}, "SECRET_KEY"),
        # 32 characters: what `check --deploy` calls weak (W009) must not start either.
        ({"SECRET_KEY": secrets.token_hex(16)}, "SECRET_KEY"),
        ({"SECRET_KEY": "ab" * 30}, "SECRET_KEY"),  # long, but too few distinct characters
        ({"SECRET_KEY": "django-insecure-" + secrets.token_urlsafe(50)}, "SECRET_KEY"),
        ({"ALLOWED_HOSTS": ""}, "ALLOWED_HOSTS"),
        # Links in reminder emails: unset, or loopback for a site that answers elsewhere.
        ({"SIGTRACKER_BASE_URL": ""}, "SIGTRACKER_BASE_URL"),
        ({"SIGTRACKER_BASE_URL": "http://127.0.0.1:8000"}, "SIGTRACKER_BASE_URL"),
        ({"SIGTRACKER_BASE_URL": "http://localhost"}, "SIGTRACKER_BASE_URL"),
        ({"SIGTRACKER_BASE_URL": "sigtracker.example.org"}, "SIGTRACKER_BASE_URL"),
        (
            {"SIGTRACKER_BASE_URL": "http://localhost:8000", "ALLOWED_HOSTS": "sigtracker.example.org,localhost"},
            "SIGTRACKER_BASE_URL",
        ),
    ],
)
def test_production_refuses_to_start_without_secret_or_hosts(env, message, monkeypatch):
    base = {
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "sigtracker.example.org",
        "SIGTRACKER_BASE_URL": "https://sigtracker.example.org",
    }
    with pytest.raises(ImproperlyConfigured, match=message):
        _production_settings(monkeypatch, **{**base, **env})


def test_production_settings_start_as_a_process():
    """One real `manage.py check` under production settings, as the release step runs it: the in-process tests
    above import the same module, this one proves nothing else (wsgi's default, the settings switch) is needed."""
    environ = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    environ.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="sigtracker.example.org",
        SIGTRACKER_BASE_URL="https://sigtracker.example.org",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_links_may_point_at_loopback_only_for_a_site_served_on_loopback_alone(monkeypatch):
    # The CI smoke test: gunicorn on 127.0.0.1 answering only there; its links rightly point there too.
    prod = _production_settings(
        monkeypatch,
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        SIGTRACKER_BASE_URL="http://127.0.0.1:8123",
    )
    assert prod.SIGTRACKER_BASE_URL == "http://127.0.0.1:8123"


def test_https_can_be_switched_off_behind_a_documented_variable(monkeypatch):
    prod = _production_settings(
        monkeypatch,
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="x.org",
        SIGTRACKER_BASE_URL="http://x.org",
        SIGTRACKER_HTTPS="false",
    )
    assert (prod.SESSION_COOKIE_SECURE, prod.SECURE_SSL_REDIRECT) == (False, False)


@pytest.mark.django_db
def test_healthz_reports_database_and_eager_broker(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"].startswith("ok")


@pytest.mark.django_db
def test_healthz_names_a_broker_that_is_down(client):
    from core.health import beat_heartbeat_record

    beat_heartbeat_record()  # beat is alive: only the broker is down
    # Nothing listens on port 1: the broker check must fail fast and say which service is down.
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0"):
        from sigtracker.celery import app

        old = app.conf.broker_url
        app.conf.broker_url = "redis://127.0.0.1:1/0"
        try:
            response = client.get("/healthz")
        finally:
            app.conf.broker_url = old
    # Degraded, not down: pages work without the broker, so the load balancer must keep the site.
    assert response.status_code == 200
    assert response.json()["status"] == "degraded: broker"
    assert response.json()["broker"].startswith("down")


@pytest.mark.django_db
def test_healthz_with_the_real_redis_broker(client, redis_url):
    with override_settings(CELERY_BROKER_URL=redis_url):
        from sigtracker.celery import app

        old = app.conf.broker_url
        app.conf.broker_url = redis_url
        try:
            response = client.get("/healthz")
        finally:
            app.conf.broker_url = old
    assert response.status_code == 200
    assert response.json()["broker"] == "ok"


@pytest.mark.django_db
@override_settings(SIGTRACKER_REQUIRE_LOGIN=True)
def test_private_mode_requires_login_everywhere_but_health_and_login(client, admin_client):
    response = client.get("/admin/keps/kep/")
    assert response.status_code == 302
    response = client.get("/some/public/page/")
    assert response.status_code == 302 and reverse("account_login") in response["Location"]
    assert client.get("/healthz").status_code == 200
    assert client.get(reverse("admin:login")).status_code == 200
    assert admin_client.get("/admin/").status_code == 200


@pytest.mark.django_db
def test_admin_login_locks_out_after_repeated_failures(client):
    get_user_model().objects.create_user("lead", password="correct-horse-battery", is_staff=True)
    url = reverse("admin:login")
    statuses = [client.post(url, {"username": "lead", "password": "wrong"}).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 200, 429]
    # Locked out: even the right password is refused now.
    response = client.post(url, {"username": "lead", "password": "correct-horse-battery"})
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_admin_forms_require_csrf(admin_user):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(admin_user)
    response = strict.post(reverse("admin:community_sig_add"), {"slug": "sig-x"})
    assert response.status_code == 403
