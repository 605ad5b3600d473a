"""sync_github against hostile servers over real HTTP: a timeline dripping one byte at a time, a rate limit that
never ends, a `next` link to another host, NUL characters in payloads, and a release lock another sync holds."""

import datetime
import threading
import time

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from github_sync.github import GitHubClient, GitHubDeadlineExceeded, GitHubRateLimited
from github_sync.models import GitHubCachedResponse
from github_sync.services.github_sync import LOCK_NAMESPACE, github_release_sync
from releases.models import Release, TrackedEnhancement
from tests.github.hostile import SECRET_BODY, Elsewhere, Hostile, drip
from tests.github.standin import TOKEN, commented, labeled, milestoned

T0 = datetime.datetime(2025, 9, 20, 12, tzinfo=datetime.UTC)
R = datetime.datetime(2025, 12, 17, 17, tzinfo=datetime.UTC)


@pytest.fixture
def hostile(settings):
    with Hostile() as server:
        settings.GITHUB_TOKEN = TOKEN
        settings.GITHUB_API_URL = server.url
        server.add_milestone("v1.35", number=41, due_on=R)
        server.add_issue(
            101,
            title="KEP-101: In-place pod resize",
            events=[labeled("sig/node", T0), milestoned("v1.35", T0), labeled("lead-opted-in", T0)],
        )
        yield server


def make_release():
    return Release.objects.create(version="1.35", cycle_start=datetime.date(2025, 9, 15))


@pytest.mark.django_db
def test_a_timeline_dripping_bytes_stops_the_command_at_its_deadline_with_one_line(hostile, settings):
    make_release()
    hostile.overrides["/timeline"] = drip
    settings.GITHUB_SYNC_DEADLINE = 3
    started = time.monotonic()
    with pytest.raises(CommandError) as raised:
        call_command("sync_github", "--release", "1.35", verbosity=0)
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"the sync ran {elapsed:.1f} s past a 3 s deadline"
    assert raised.value.returncode == 1
    message = str(raised.value)
    assert "\n" not in message and "deadline" in message, message


def test_a_retry_after_that_never_ends_is_given_up_on():
    with Hostile() as server:

        def always_limited(handler):
            body = b'{"message": "You have exceeded a secondary rate limit."}'
            handler.send_response(429)
            handler.send_header("Retry-After", "1")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)

        server.overrides["/issues"] = always_limited
        outcome = []

        def run():
            with GitHubClient(token=TOKEN, api_url=server.url, max_rate_limit_total=3) as client:
                try:
                    client.get_all("/repos/kubernetes/enhancements/issues")
                except GitHubRateLimited as exc:
                    outcome.append(exc)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(20)
        assert not thread.is_alive(), "still retrying a rate limit after 20 s"
        assert outcome and "rate limit" in str(outcome[0])
        assert len(server.log) <= 5


@pytest.mark.django_db
def test_a_next_link_to_another_host_is_not_followed_and_its_body_not_echoed(hostile, capsys):
    make_release()
    elsewhere = Elsewhere()
    try:
        original = hostile._ok

        def with_foreign_next(body, handler, extra=None):
            if "/issues" in handler.path and "/timeline" not in handler.path:
                extra = {**(extra or {}), "Link": f'<{elsewhere.url}/steal?page=2>; rel="next"'}
            return original(body, handler, extra)

        hostile._ok = with_foreign_next
        with pytest.raises(CommandError) as raised:
            call_command("sync_github", "--release", "1.35", verbosity=1)
    finally:
        elsewhere.stop()
    assert elsewhere.seen == [], "the client went to another host"
    out = capsys.readouterr()
    for text in (str(raised.value), out.out, out.err):
        assert SECRET_BODY not in text and TOKEN not in text
    assert "not followed" in str(raised.value)


def test_an_error_names_githubs_message_never_the_body_as_sent():
    with Hostile() as server:

        def proxy_page(handler):
            body = f"<html>{SECRET_BODY}</html>".encode()
            handler.send_response(418)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)

        server.overrides["/milestones"] = proxy_page
        with GitHubClient(token=TOKEN, api_url=server.url) as client, pytest.raises(Exception) as raised:
            client.get_all("/repos/kubernetes/enhancements/milestones")
    assert "418" in str(raised.value) and SECRET_BODY not in str(raised.value)


@pytest.mark.django_db
def test_nul_and_lone_surrogates_in_payloads_are_stripped_not_a_traceback(hostile, capsys):
    make_release()
    hostile.issues[101]["title"] = "KEP-101:\u0000 In-place\ud800 pod resize"
    hostile.timelines[101].append(commented("a NUL \u0000 here", T0 + datetime.timedelta(hours=1)))
    call_command("sync_github", "--release", "1.35", verbosity=0)
    row = TrackedEnhancement.objects.get(kep__number=101)
    assert row.kep.title == "KEP-101: In-place pod resize"
    assert GitHubCachedResponse.objects.filter(url__contains="/timeline").exists()
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.django_db(transaction=True)
def test_the_release_lock_is_waited_for_with_a_timeout(hostile, postgres_only):
    release = make_release()
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"] or "postgres", dbname=db["NAME"]
    ) as other:
        other.execute("SELECT pg_advisory_lock(%s, %s)", [LOCK_NAMESPACE, release.pk])  # a sync still running
        started = time.monotonic()
        with pytest.raises(GitHubDeadlineExceeded):
            github_release_sync(version="1.35", repo="kubernetes/enhancements", deadline=2)
        assert time.monotonic() - started < 6
        other.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_NAMESPACE, release.pk])
    # Once the other sync is done, the next run starts cleanly.
    report = github_release_sync(version="1.35", repo="kubernetes/enhancements", deadline=30)
    assert report.created == 1 and not report.stopped
