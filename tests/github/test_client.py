"""The GitHub client against the stand-in server, over real HTTP: pagination, ETags, retries, limits."""

import datetime

import pytest

from github_sync.github import GitHubAuthError, GitHubClient, GitHubNotFound, GitHubRateLimited
from github_sync.github.payloads import parse_issue, parse_timeline, shape_timeline
from tests.github.standin import TOKEN, StandInGitHub, commented, cross_referenced, labeled, milestoned

T0 = datetime.datetime(2025, 9, 20, 12, 0, tzinfo=datetime.UTC)
TIMELINE = "/repos/kubernetes/enhancements/issues/1/timeline"


@pytest.fixture
def standin():
    with StandInGitHub() as server:
        server.add_milestone("v1.35")
        events = [milestoned("v1.35", T0), labeled("lead-opted-in", T0)]
        events += [commented(f"ping {n}", T0 + datetime.timedelta(minutes=n)) for n in range(1, 120)]
        events += [cross_referenced(T0), labeled("tracked/yes", T0 + datetime.timedelta(days=1))]
        server.add_issue(1, events=events)
        yield server


def client_for(server, **kwargs):
    return GitHubClient(token=TOKEN, api_url=server.url, backoff=0.01, **kwargs)


def test_follows_link_pagination_and_parses_documented_shapes(standin):
    with client_for(standin) as client:
        fetched = client.get_all(TIMELINE, {"per_page": 100}, shape=shape_timeline)
    assert client.requests == 2 and not fetched.unchanged
    events = parse_timeline(fetched.items, issue=1)
    assert [e.kind for e in events if e.kind != "commented"] == ["milestoned", "labeled", "labeled"]
    comment = next(e for e in events if e.kind == "commented")
    assert comment.actor == "someone" and "#issuecomment-" in comment.url
    assert events[-1].label == "tracked/yes" and events[-1].actor == "release-bot"


def test_second_read_sends_etags_and_costs_only_304s(standin):
    with client_for(standin) as client:
        first = client.get_all(TIMELINE, {"per_page": 100}, shape=shape_timeline)
    cache = {page.url: page for page in first.new_pages}
    with client_for(standin, cache=cache) as client:
        again = client.get_all(TIMELINE, {"per_page": 100}, shape=shape_timeline)
    assert again.unchanged and again.items == first.items and again.new_pages == []
    assert client.requests == 2 and client.not_modified == 2
    assert [entry["status"] for entry in standin.log[-2:]] == [304, 304]


def test_retries_a_502_and_waits_out_a_primary_rate_limit(standin):
    standin.fail_next("/timeline", 502)
    standin.rate_limit_next("/timeline", reset_in=1)
    slept = []
    with client_for(standin, sleep=slept.append) as client:
        fetched = client.get_all(TIMELINE, {"per_page": 100})
    assert len(fetched.items) == 123
    assert client.retries == 2 and len(slept) == 2
    assert 0 < slept[1] <= 3  # until X-RateLimit-Reset, plus a second of clock skew


def test_rate_limit_far_away_stops_with_the_reset_time(standin):
    standin.rate_limit_next("/timeline", reset_in=3600)
    with client_for(standin) as client, pytest.raises(GitHubRateLimited) as raised:
        client.get_all(TIMELINE)
    assert "resets at" in str(raised.value) and raised.value.reset_at > datetime.datetime.now(datetime.UTC)


def test_bad_token_and_unknown_repo_say_what_to_fix(standin):
    with (
        GitHubClient(token="wrong", api_url=standin.url) as client,
        pytest.raises(GitHubAuthError, match="GITHUB_TOKEN"),
    ):
        client.get_all(TIMELINE)
    with client_for(standin) as client, pytest.raises(GitHubNotFound, match="(404)"):
        client.get_all("/repos/kubernetes/nope/milestones")


def test_pull_requests_are_marked(standin):
    standin.add_issue(2, pull_request=True)
    with client_for(standin) as client:
        items = client.get_all("/repos/kubernetes/enhancements/issues", {"state": "all"}).items
    assert {parse_issue(item).number: parse_issue(item).is_pull_request for item in items} == {1: False, 2: True}
