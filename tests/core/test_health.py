"""/healthz: 503 only when the database is down; a broker outage or a stopped beat is 200 "degraded"."""

import datetime

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone

from core.health import beat_heartbeat_record
from core.tasks import beat_heartbeat
from sigtracker.celery import app
from tests.core.servers import get, production_gunicorn


@pytest.fixture
def broker_at():
    """Point the Celery app (and the settings) at a broker URL for the length of the test."""
    overrides = []

    def point(url):
        override = override_settings(CELERY_BROKER_URL=url)
        override.enable()
        overrides.append((override, app.conf.broker_url))
        app.conf.broker_url = url

    yield point
    for override, old in reversed(overrides):
        app.conf.broker_url = old
        override.disable()


@pytest.mark.django_db
def test_a_broker_outage_is_degraded_not_a_site_outage(client, broker_at):
    broker_at("redis://127.0.0.1:1/0")  # nothing listens on port 1
    beat_heartbeat_record()  # beat is alive: only the broker is down
    response = client.get("/healthz")
    # The load balancer keeps the site in rotation: pages and edits work without Redis.
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded: broker"
    assert body["broker"].startswith("down") and body["database"].startswith("ok")


def test_a_database_outage_is_503():
    # A real server whose database does not answer (nothing listens on port 1).
    with production_gunicorn(DATABASE_URL="postgres://sigtracker@127.0.0.1:1/sigtracker") as port:
        status, _headers, body = get(port, "/healthz")
    assert status == 503, body
    assert b'"status": "unavailable: database"' in body


@pytest.mark.django_db
def test_beat_heartbeat_ok_then_stale(client, broker_at, redis_url):
    broker_at(redis_url)
    # Never reported (beat never started, or not yet run once): nothing proves reminders will go out.
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body  # the site itself still serves pages
    assert body["status"] == "degraded: beat" and body["beat"].startswith("never reported")

    beat_heartbeat.apply()  # what a worker does when beat queues it
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok" and response.json()["beat"].startswith("ok")

    interval = settings.SIGTRACKER_BEAT_HEARTBEAT_SECONDS
    beat_heartbeat_record(at=timezone.now() - datetime.timedelta(seconds=1.5 * interval))
    assert client.get("/healthz").json()["beat"].startswith("ok")  # one missed beat is tolerated
    beat_heartbeat_record(at=timezone.now() - datetime.timedelta(seconds=2 * interval + 5))
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded: beat"
    assert response.json()["beat"].startswith("stale")


@pytest.mark.django_db
def test_without_a_broker_there_is_no_beat_to_watch(client):
    body = client.get("/healthz").json()
    assert body["status"] == "ok" and body["beat"].startswith("not configured")


def test_beat_queues_the_heartbeat():
    entry = settings.CELERY_BEAT_SCHEDULE["beat-heartbeat"]
    assert entry["task"] == beat_heartbeat.name
    assert entry["schedule"] == settings.SIGTRACKER_BEAT_HEARTBEAT_SECONDS
