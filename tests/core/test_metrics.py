"""/metrics: who may read it, and the site-level metrics (requests by view, database, page cache, beat)."""

import datetime

import pytest
from django.db import connection
from django.utils import timezone

from core.health import beat_heartbeat_record
from tests.scrape import Scrape, scrape


@pytest.mark.django_db
def test_loopback_and_listed_networks_may_scrape_others_get_403(client, settings):
    settings.SIGTRACKER_METRICS_ALLOWED_NETWORKS = ["10.0.0.0/8", "fd00::/8"]
    assert client.get("/metrics").status_code == 200  # the test client comes from 127.0.0.1
    assert client.get("/metrics", REMOTE_ADDR="::1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="10.42.1.7").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="fd00::17").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.5").status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="192.168.1.4").status_code == 403
    # Relayed by the Ingress controller (whose own address is in the pod network): not the cluster's Prometheus.
    assert client.get("/metrics", REMOTE_ADDR="10.42.1.7", HTTP_X_FORWARDED_FOR="203.0.113.5").status_code == 403
    settings.SIGTRACKER_METRICS_ALLOWED_NETWORKS = []
    assert client.get("/metrics", REMOTE_ADDR="10.42.1.7").status_code == 403


@pytest.mark.django_db
def test_probes_and_metrics_answer_a_pod_ip_over_http_in_production(client, settings):
    # The kubelet and Prometheus ask http://<pod IP>:8000/...: no allowed host, no HTTPS.
    settings.ALLOWED_HOSTS = ["sigtracker.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    settings.SIGTRACKER_REQUIRE_LOGIN = True
    for path in ("/livez", "/readyz", "/metrics"):
        response = client.get(path, HTTP_HOST="10.42.1.7:8000")
        assert response.status_code == 200, (path, response.status_code)
        assert "no-cache" in response["Cache-Control"]
    # Every other path still gets the host check.
    assert client.get("/healthz", HTTP_HOST="10.42.1.7:8000").status_code == 400


@pytest.mark.django_db
def test_readiness_follows_the_database_liveness_does_not(client, monkeypatch):
    body = client.get("/readyz").json()
    assert body["status"] == "ready" and body["database"].startswith("ok")
    monkeypatch.setattr("core.health.database_health", lambda: (False, "down: OperationalError"))
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json()["status"] == "unavailable: database"
    # A restart cures no database outage: the process is alive.
    assert client.get("/livez").status_code == 200


@pytest.mark.django_db
def test_neither_probe_fails_when_only_redis_is_down(client, settings):
    from core.health import beat_heartbeat_record
    from sigtracker.celery import app

    beat_heartbeat_record()  # beat is alive: only the broker is down
    old = app.conf.broker_url
    settings.CELERY_BROKER_URL = app.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    try:
        assert client.get("/readyz").status_code == 200
        assert client.get("/livez").status_code == 200
        assert client.get("/healthz").json()["status"] == "degraded: broker"
    finally:
        app.conf.broker_url = old


@pytest.mark.django_db
def test_a_request_is_counted_and_timed_by_view_with_its_queries(client, settings):
    before = scrape(client)
    assert client.get("/releases/").status_code == 200
    assert client.get("/no-such-page/").status_code == 404
    after = scrape(client)

    def delta(name, **labels):
        return after.value(name, **labels) - before.value(name, **labels)

    assert delta("django_http_requests_total", view="releases:release_list", method="GET", status="200") == 1
    assert delta("django_http_request_duration_seconds_count", view="releases:release_list") == 1
    assert delta("django_http_requests_total", view="<unresolved>", status="404") == 1
    # The page's statements (and the scrape's own) were timed.
    assert delta("django_db_query_duration_seconds_count", alias="default", vendor=connection.vendor) >= 1


@pytest.mark.django_db
def test_page_cache_hits_and_misses_are_counted(client, settings):
    settings.SIGTRACKER_PAGE_CACHE_SECONDS = 300
    before = scrape(client)
    client.get("/releases/")
    client.get("/releases/")
    after = scrape(client)
    for result in ("miss", "hit"):
        assert (
            after.value("django_cache_requests_total", cache="pages", result=result)
            - before.value("django_cache_requests_total", cache="pages", result=result)
            == 1
        )


@pytest.mark.django_db
def test_beat_heartbeat_age_is_read_from_the_database(client):
    assert not scrape(client).has("sigtracker_beat_heartbeat_age_seconds")  # never reported: absent, not 0
    beat_heartbeat_record(at=timezone.now() - datetime.timedelta(seconds=90))
    age = scrape(client).value("sigtracker_beat_heartbeat_age_seconds")
    assert 90 <= age < 120


def test_scrape_parses_what_it_reads():
    text = 'x_total{a="1",b="2"} 3.0\nx_total{a="1",b="3"} 4.0\n'
    assert Scrape(text).value("x_total", a="1") == 7 and Scrape(text).value("x_total", b="3") == 4
