"""Sentry: on only when SENTRY_DSN is set, and then nothing personal leaves the site. Tested with production settings
in a process of their own, against a stand-in Sentry on a local port (no network)."""

import gzip
import json
import os
import secrets
import subprocess
import sys
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.sentry import scrub_event
from tests.core.servers import ROOT, serve_in_thread, shared_database_url

SCRIPT = """
import django
django.setup()
import sentry_sdk
from django.test import Client
from django.test.utils import override_settings

print("active", sentry_sdk.get_client().is_active())
with override_settings(ROOT_URLCONF="tests.core.urls_boom"):
    client = Client(raise_request_exception=False)
    response = client.get("/boom/?email=alice@example.com", HTTP_COOKIE="sessionid=s3cret; csrftoken=t0ken",
                          HTTP_AUTHORIZATION="Token abc", REMOTE_ADDR="198.51.100.7", HTTP_X_REQUEST_ID="req-12345678")
print("status", response.status_code)
sentry_sdk.flush(10)
"""


class StandInSentry(ThreadingHTTPServer):
    """Takes what the SDK posts (envelopes: a header line, then item header and payload lines), keeps the events."""

    def __init__(self):
        self.events: list[dict] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(handler):  # noqa: N802, N805 - http.server's API
                body = handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
                encoding = handler.headers.get("Content-Encoding", "")
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding == "deflate":
                    body = zlib.decompress(body)
                lines = body.split(b"\n")
                for header, payload in zip(lines[1::2], lines[2::2], strict=False):
                    if json.loads(header).get("type") == "event":
                        self.events.append(json.loads(payload))
                handler.send_response(200)
                handler.send_header("Content-Type", "application/json")
                handler.end_headers()
                handler.wfile.write(b"{}")

            def log_message(handler, *args):  # noqa: N805
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        serve_in_thread(self)

    @property
    def dsn(self) -> str:
        return f"http://publickey@127.0.0.1:{self.server_address[1]}/1"


def run_production(database_url: str, **env) -> str:
    environ = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "SENTRY_DSN"}}
    environ.update(
        DJANGO_SETTINGS_MODULE="sigtracker.settings.prod",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="testserver",
        SIGTRACKER_BASE_URL="http://testserver",
        SIGTRACKER_HTTPS="false",
        CELERY_BROKER_URL="",
        DATABASE_URL=database_url,
        SIGTRACKER_LOG_FORMAT="json",
        **env,
    )
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=environ, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture
def database_url(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        url = shared_database_url()
    if not url:
        pytest.skip("a second process needs PostgreSQL (an SQLite test database lives in memory)")
    return url


def test_without_a_dsn_sentry_stays_off(database_url):
    standin = StandInSentry()
    try:
        out = run_production(database_url)
    finally:
        standin.shutdown()
    assert "active False" in out and "status 500" in out
    assert standin.events == []


def test_with_a_dsn_errors_are_sent_without_personal_data(database_url):
    standin = StandInSentry()
    try:
        out = run_production(database_url, SENTRY_DSN=standin.dsn, SENTRY_ENVIRONMENT="ci")
    finally:
        standin.shutdown()
    assert "active True" in out and "status 500" in out
    errors = [e for e in standin.events if e.get("exception")]
    assert errors, standin.events
    event = errors[0]
    assert event["environment"] == "ci"
    assert event["exception"]["values"][-1]["type"] == "RuntimeError"
    sent = json.dumps(standin.events)
    for secret in ("alice@example.com", "s3cret", "t0ken", "Token abc", "198.51.100.7"):
        assert secret not in sent, secret
    assert "[email]" in event["exception"]["values"][-1]["value"]
    # The request id ties the event to the request's log lines.
    assert event["tags"]["request_id"] == "req-12345678"


def test_scrub_keeps_the_user_id_only():
    event = scrub_event(
        {
            "user": {"id": 7, "email": "a@b.org", "ip_address": "1.2.3.4", "username": "alice"},
            "request": {
                "cookies": {"sessionid": "x"},
                "data": {"password": "p"},
                "headers": {"Cookie": "x", "Accept": "*/*"},
            },
            "logentry": {
                "message": "sent to %s",
                "params": ["bob@example.com"],
                "formatted": "sent to bob@example.com",
            },
            "breadcrumbs": {"values": [{"message": "mail to carol@example.com", "data": {"to": "carol@example.com"}}]},
        }
    )
    assert event["user"] == {"id": 7}
    assert event["request"] == {"headers": {"Accept": "*/*"}}
    assert event["logentry"] == {"message": "sent to %s", "formatted": "sent to [email]"}
    assert event["breadcrumbs"]["values"] == [{"message": "mail to [email]"}]
