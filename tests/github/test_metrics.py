"""The GitHub sync's metrics, scraped from /metrics after a sync against the stand-in: requests by status, the rate
limit left, the sync's duration and outcome, and each release's last success."""

import datetime

import pytest
from django.utils import timezone

from github_sync.github import GitHubError
from github_sync.services.github_sync import github_release_sync
from github_sync.tasks import sync_github_current_release
from releases.choices import MilestoneKind
from releases.models import Milestone, Release
from tests.github.standin import labeled, milestoned
from tests.scrape import Delta, scrape

D = datetime.timedelta
CYCLE = datetime.datetime(2025, 9, 15, 16, tzinfo=datetime.UTC)
R = datetime.datetime(2025, 12, 17, 17, tzinfo=datetime.UTC)


def make_release():
    release = Release.objects.create(version="1.35", cycle_start=CYCLE.date())
    for kind, at in ((MilestoneKind.CYCLE_START, CYCLE), (MilestoneKind.RELEASE, R)):
        Milestone.objects.create(release=release, kind=kind, at=at)
    return release


def scenario(github):
    """Two KEP issues opted into v1.35, one of them tracked."""
    github.add_milestone("v1.35", number=41, due_on=R)
    opt = CYCLE + D(days=2)
    for number in (101, 102):
        github.add_issue(
            number,
            title=f"KEP-{number}: something",
            events=[
                labeled("sig/node", CYCLE - D(days=90)),
                milestoned("v1.35", opt, "sig-node-lead"),
                labeled("lead-opted-in", opt, "sig-node-lead"),
                *([labeled("tracked/yes", opt + D(days=3), "enh-shadow")] if number == 101 else []),
            ],
        )


@pytest.mark.django_db
def test_a_sync_counts_github_requests_rate_limit_duration_and_last_success(client, github):
    make_release()
    scenario(github)
    github.fail_next("/issues/101/timeline", 502)
    delta = Delta(client)
    report = github_release_sync(version="1.35", repo="kubernetes/enhancements")
    assert not report.stopped and report.requests > 0

    assert delta("sigtracker_github_requests_total", status="200") >= 1
    assert delta("sigtracker_github_requests_total", status="502") == 1
    assert delta("sigtracker_github_requests_total") == report.requests
    remaining = scrape(client).value("sigtracker_github_rate_limit_remaining")
    assert 0 < remaining < 5000
    assert delta("sigtracker_github_sync_duration_seconds_count", release="1.35") == 1
    assert delta("sigtracker_github_syncs_total", release="1.35", outcome="ok") == 1

    # An unchanged re-sync is all 304s, and a new success.
    github_release_sync(version="1.35", repo="kubernetes/enhancements")
    assert delta("sigtracker_github_requests_total", status="304") >= 1
    assert delta("sigtracker_github_syncs_total", release="1.35", outcome="ok") == 2


@pytest.mark.django_db
def test_a_sync_stopped_by_the_rate_limit_is_not_a_success(client, github):
    make_release()
    scenario(github)
    # A timeline read hits a primary limit that resets in an hour: the sync keeps what it has and stops.
    github.rate_limit_next("/issues/102/timeline", reset_in=3600)
    delta = Delta(client)
    report = github_release_sync(version="1.35", repo="kubernetes/enhancements")
    assert report.stopped
    assert delta("sigtracker_github_requests_total", status="403") == 1
    assert delta("sigtracker_github_syncs_total", release="1.35", outcome="stopped") == 1
    assert not scrape(client).has("sigtracker_github_sync_last_success_timestamp_seconds", release="1.35")


@pytest.mark.django_db
def test_a_sync_that_cannot_start_is_a_failure(client, github):
    make_release()
    scenario(github)
    github.rate_limit_next("/milestones", reset_in=3600)
    delta = Delta(client)
    with pytest.raises(GitHubError):
        github_release_sync(version="1.35", repo="kubernetes/enhancements")
    assert scrape(client).value("sigtracker_github_rate_limit_remaining") == 0
    assert delta("sigtracker_github_syncs_total", release="1.35", outcome="failed") == 1


@pytest.mark.django_db
def test_beats_sync_records_each_releases_last_success(client, github):
    make_release()
    scenario(github)
    assert not scrape(client).has("sigtracker_github_sync_last_success_timestamp_seconds")
    started = timezone.now()
    assert sync_github_current_release.apply().get().startswith("v1.35 from kubernetes/enhancements")
    last = scrape(client).value("sigtracker_github_sync_last_success_timestamp_seconds", release="1.35")
    assert started.timestamp() - 1 <= last <= timezone.now().timestamp()

    # A failing sync leaves it where it was, for the alert to see it age.
    github.rate_limit_next("/milestones", reset_in=3600)
    assert sync_github_current_release.apply().get().startswith("failed: ")
    assert scrape(client).value("sigtracker_github_sync_last_success_timestamp_seconds", release="1.35") == last
