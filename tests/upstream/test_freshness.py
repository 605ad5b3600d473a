"""Freshness everywhere: the API, every page's footer, /healthz, /metrics; the beat entry and its queue; the
admin's "Refresh now"."""

import datetime

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.utils import timezone

from tests.scrape import scrape
from upstream.models import UpstreamRun, UpstreamSource
from upstream.tasks import refresh_upstream

pytestmark = pytest.mark.django_db

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def configured(settings):
    settings.SIGTRACKER_UPSTREAM_ENHANCEMENTS = "https://bot:s3cret@github.com/kubernetes/enhancements.git"
    settings.SIGTRACKER_UPSTREAM_SIG_RELEASE = "git@github.com:kubernetes/sig-release.git"
    settings.SIGTRACKER_UPSTREAM_COMMUNITY = ""


def imported(name, *, hours_ago=1.0, status="ok"):
    now = timezone.now()
    return UpstreamSource.objects.create(
        name=name,
        last_commit=SHA,
        last_commit_date=datetime.datetime(2026, 12, 1, 9, 30, tzinfo=datetime.UTC),
        last_success_at=now - datetime.timedelta(hours=hours_ago),
        last_run_at=now,
        status=status,
    )


def test_api_lists_configured_sources_without_credentials(client, configured):
    imported("enhancements")
    UpstreamSource.objects.create(name="community", last_commit=SHA)  # disabled: not listed
    body = client.get("/api/v1/upstream/").json()
    assert [row["name"] for row in body] == ["enhancements", "sig-release"]
    enhancements, sig_release = body
    assert enhancements["url"] == "https://github.com/kubernetes/enhancements.git"
    assert enhancements["commit"] == SHA and enhancements["commit_date"].startswith("2026-12-01T09:30")
    assert enhancements["status"] == "ok" and enhancements["error"] == "" and enhancements["last_success_at"]
    assert sig_release == {
        "name": "sig-release",
        "url": "git@github.com:kubernetes/sig-release.git",
        "commit": None,
        "commit_date": None,
        "status": "never",
        "error": "",
        "last_success_at": None,
    }


def test_every_page_footer_says_how_old_upstream_is(client, configured):
    assert "upstream as of" not in client.get("/releases/").content.decode()  # nothing imported yet: no date
    imported("enhancements")
    for path in ("/releases/", "/keps/"):
        page = client.get(path).content.decode()
        assert "enhancements: upstream as of 2026-12-01 09:30 UTC (<code>0123456789ab</code>)" in page


def test_healthz_degraded_when_a_source_is_stale(client, configured, settings):
    settings.SIGTRACKER_UPSTREAM_STALE_AFTER = 3600
    imported("enhancements", hours_ago=0.5)
    body = client.get("/healthz").json()
    assert body["status"] == "degraded: upstream" and "sig-release" in body["upstream"]  # never refreshed
    imported("sig-release", hours_ago=2)
    response = client.get("/healthz")
    assert response.status_code == 200 and "stale: sig-release" in response.json()["upstream"]
    UpstreamSource.objects.filter(name="sig-release").update(last_success_at=timezone.now())
    assert client.get("/healthz").json()["status"] == "ok"


def test_healthz_ok_with_no_source_configured(client):
    body = client.get("/healthz").json()
    assert body["status"] == "ok" and body["upstream"] == "ok"


def test_metrics_export_last_success_per_source(client, configured):
    assert not scrape(client).has("sigtracker_upstream_last_success_timestamp_seconds")  # never: absent, not 0
    source = imported("enhancements")
    value = scrape(client).value("sigtracker_upstream_last_success_timestamp_seconds", source="enhancements")
    assert value == pytest.approx(source.last_success_at.timestamp())


def test_beat_runs_the_refresh_hourly_on_the_imports_queue():
    entry = settings.CELERY_BEAT_SCHEDULE["refresh-upstream"]
    assert entry["task"] == refresh_upstream.name
    assert entry["schedule"].minute == {41} and len(entry["schedule"].hour) == 24
    assert entry["options"]["queue"] == "imports"
    assert settings.CELERY_TASK_ROUTES[refresh_upstream.name] == {"queue": "imports"}
    assert refresh_upstream.soft_time_limit and refresh_upstream.time_limit > refresh_upstream.soft_time_limit
    assert entry["options"]["expires"] <= 3600


def test_refresh_now_needs_the_permission(client, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.SIGTRACKER_UPSTREAM_ALLOW_FILE = True
    settings.SIGTRACKER_UPSTREAM_DIR = str(tmp_path / "clones")
    settings.SIGTRACKER_UPSTREAM_ENHANCEMENTS = f"file://{tmp_path / 'gone.git'}"
    source = imported("enhancements")
    staff = User.objects.create_user("curator", password="pw", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_upstreamsource"))
    client.force_login(staff)
    post = {"action": "refresh_now", "_selected_action": [source.pk]}
    assert client.post("/admin/upstream/upstreamsource/", post).status_code == 403
    staff.user_permissions.add(Permission.objects.get(codename="refresh_upstreamsource"))
    staff = User.objects.get(pk=staff.pk)
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/admin/upstream/upstreamsource/", post)
    assert response.status_code == 302
    # Eager in tests: the queued task ran; the remote is gone, and that is on record.
    run = UpstreamRun.objects.get()
    assert run.source == source and run.outcome == "failed"
