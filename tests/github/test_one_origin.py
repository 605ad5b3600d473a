"""The one HTTP path to GitHub against hostile servers over real HTTP: redirects (REST and GraphQL) to another
host that records what reaches it, redirects within the API, answers larger than the limit, and a 403 read the
same way by REST and GraphQL."""

import datetime
import json
import logging
import time
import tracemalloc

import pytest
from django.core.management import CommandError, call_command

from github_sync.github import GitHubAuthError, GitHubClient, GitHubNotFound, GitHubRefused
from github_sync.github.graphql import GraphQL
from github_sync.models import GitHubCachedResponse
from releases.models import Release
from tests.github.hostile import SECRET_BODY, Elsewhere, Hostile, Scripted, huge, redirect, send_json
from tests.github.standin import TOKEN, labeled, milestoned

T0 = datetime.datetime(2025, 9, 20, 12, tzinfo=datetime.UTC)
R = datetime.datetime(2025, 12, 17, 17, tzinfo=datetime.UTC)
QUERY = "query Q { viewer { login } }"


@pytest.fixture
def elsewhere():
    other = Elsewhere()
    yield other
    other.stop()


@pytest.fixture
def hostile(settings):
    with Hostile() as server:
        settings.GITHUB_TOKEN = TOKEN
        settings.GITHUB_API_URL = server.url
        server.add_milestone("v1.35", number=41, due_on=R)
        server.add_issue(101, events=[labeled("sig/node", T0), milestoned("v1.35", T0), labeled("lead-opted-in", T0)])
        yield server


@pytest.mark.django_db
@pytest.mark.parametrize("status", [301, 302, 307])
def test_a_rest_redirect_to_another_host_is_refused_naming_it_and_nothing_reaches_it(
    hostile, elsewhere, status, capsys, caplog
):
    Release.objects.create(version="1.35", cycle_start=datetime.date(2025, 9, 15))
    hostile.overrides["/milestones"] = lambda handler: redirect(handler, f"{elsewhere.url}/internal/config", status)
    with caplog.at_level(logging.DEBUG), pytest.raises(CommandError) as raised:
        call_command("sync_github", "--release", "1.35", verbosity=2)
    assert elsewhere.seen == [], "a request left the API's origin"
    message = str(raised.value)
    assert f"{elsewhere.url}/internal/config" in message and "not followed" in message
    out = capsys.readouterr()
    for text in (message, out.out, out.err, caplog.text):
        assert SECRET_BODY not in text and TOKEN not in text
    assert not GitHubCachedResponse.objects.filter(body__icontains="hunter2").exists()


def test_a_graphql_307_is_not_resent_to_another_host(elsewhere):
    with Scripted(lambda handler, body: redirect(handler, f"{elsewhere.url}/graphql", 307)) as api:
        with GitHubClient(token=TOKEN, api_url=api.url) as client, pytest.raises(GitHubRefused) as raised:
            GraphQL(client).query(QUERY)
    assert elsewhere.seen == [], "the query was re-sent to another host"
    assert f"{elsewhere.url}/graphql" in str(raised.value) and SECRET_BODY not in str(raised.value)


def test_a_graphql_307_within_the_api_is_followed_with_the_query():
    def answer(handler, body):
        if handler.path == "/graphql":
            return redirect(handler, "/graphql-moved", 307)
        assert json.loads(body)["query"] == QUERY
        send_json(handler, 200, {"data": {"viewer": {"login": "sigtracker"}}})

    with Scripted(answer) as api, GitHubClient(token=TOKEN, api_url=api.url) as client:
        assert GraphQL(client).query(QUERY) == {"viewer": {"login": "sigtracker"}}
    assert api.seen == [("POST", "/graphql"), ("POST", "/graphql-moved")]


def test_a_transferred_issue_is_followed_within_the_api_and_read_conditionally(hostile):
    moved = "/repos/kubernetes/enhancements/issues/101"
    hostile.overrides["/issues/5328"] = lambda handler: redirect(handler, f"{hostile.url}{moved}", 301)
    with GitHubClient(token=TOKEN, api_url=hostile.url) as client:
        first = client.get_issue("kubernetes/enhancements", 5328)
        again = client.get_issue("kubernetes/enhancements", 5328, etag=first.etag)
    assert first.changed and first.body["number"] == 101 and first.etag
    assert not again.changed and again.body is None and client.not_modified == 1
    assert [entry["status"] for entry in hostile.log if entry["path"] == moved] == [200, 304]


def test_a_redirect_loop_within_the_api_stops_after_three():
    with Scripted(lambda handler, body: redirect(handler, f"/loop{len(api.seen)}", 302)) as api:
        with GitHubClient(token=TOKEN, api_url=api.url) as client, pytest.raises(GitHubRefused, match="3 times"):
            client.get_all("/repos/kubernetes/enhancements/issues")
    assert len(api.seen) == 4


def test_a_deleted_issue_is_not_found_with_its_status(hostile):
    hostile.overrides["/issues/77"] = lambda handler: send_json(handler, 410, {"message": "This issue was deleted"})
    with GitHubClient(token=TOKEN, api_url=hostile.url) as client, pytest.raises(GitHubNotFound) as raised:
        client.get_issue("kubernetes/enhancements", 77)
    assert raised.value.status == 410


@pytest.mark.parametrize("declare", [False, True], ids=["chunked", "content-length"])
def test_a_150_mb_answer_is_refused_as_soon_as_it_passes_the_limit(declare):
    with Scripted(lambda handler, body: huge(handler, 150, declare=declare)) as api:
        tracemalloc.start()
        started = time.monotonic()
        try:
            with GitHubClient(token=TOKEN, api_url=api.url) as client, pytest.raises(GitHubRefused) as raised:
                GraphQL(client).query(QUERY)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert "larger than 10 MiB" in str(raised.value)
    assert peak < 40 * 1024 * 1024, f"{peak / 2**20:.0f} MiB held while refusing a 150 MB answer"
    assert time.monotonic() - started < 20


def _forbidden(headers: dict, message: str = "Resource not accessible by integration"):
    return lambda handler, body: send_json(handler, 403, {"message": message}, headers)


@pytest.mark.parametrize("api", ["rest", "graphql"])
def test_a_plain_403_is_a_permission_error_in_rest_and_graphql_alike(api):
    slept = []
    with Scripted(_forbidden({})) as server, GitHubClient(token=TOKEN, api_url=server.url, sleep=slept.append) as c:
        with pytest.raises(GitHubAuthError, match="lacks a permission"):
            c.get_all("/repos/kubernetes/enhancements/issues") if api == "rest" else GraphQL(c).query(QUERY)
    assert slept == [] and len(server.seen) == 1


@pytest.mark.parametrize("api", ["rest", "graphql"])
@pytest.mark.parametrize(
    "headers,message",
    [
        ({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "{soon}"}, "API rate limit exceeded"),
        ({"retry-after": "2"}, "You have exceeded a secondary rate limit"),
        ({}, "You have exceeded a secondary rate limit"),
    ],
    ids=["primary", "retry-after", "secondary-message"],
)
def test_a_rate_limited_403_waits_in_rest_and_graphql_alike(api, headers, message):
    def answer(handler, body):
        if len(server.seen) == 1:
            filled = {key: value.format(soon=int(time.time()) + 3) for key, value in headers.items()}
            return _forbidden(filled, message)(handler, body)
        send_json(handler, 200, [] if api == "rest" else {"data": {"viewer": {"login": "x"}}})

    slept = []
    with Scripted(answer) as server, GitHubClient(token=TOKEN, api_url=server.url, sleep=slept.append) as client:
        if api == "rest":
            client.get_all("/repos/kubernetes/enhancements/issues")
        else:
            GraphQL(client).query(QUERY)
    assert len(slept) == 1 and 0 < slept[0] <= 60 and len(server.seen) == 2


def test_a_list_whose_pages_never_end_is_refused_once_they_add_up_past_the_limit():
    title = "t" * (1024 * 1024)

    def answer(handler, body):
        page = len(server.seen)
        link = f'<{server.url}/repos/kubernetes/enhancements/issues?page={page + 1}>; rel="next"'
        send_json(handler, 200, [{"number": page, "title": title}], {"Link": link})

    with Scripted(answer) as server, GitHubClient(token=TOKEN, api_url=server.url) as client:
        with pytest.raises(GitHubRefused, match="add up to more than 64 MiB"):
            client.get_all("/repos/kubernetes/enhancements/issues", max_pages=500)
    assert len(server.seen) <= 65
