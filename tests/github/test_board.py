"""sync of the Release Tracking Board (a ProjectV2) against the GraphQL stand-in over real HTTP."""

import datetime
import functools
from unittest import mock

import pytest
from django.db import connection

from core.models import Heartbeat
from github_sync.github import GitHubClient, GitHubRateLimited, GitHubUnavailable
from github_sync.services import board_read, board_sync
from github_sync.services.board_sync import board_release_sync
from releases.choices import EnhancementStatus as S
from releases.choices import HistorySource
from releases.models import EnhancementStatusChange, Release, TrackedEnhancement
from tests.factories import KepFactory, PersonFactory, ReleaseFactory, SigFactory, TrackedEnhancementFactory
from tests.github.graphql_standin import StandInGraphQL
from tests.github.standin import TOKEN

T0 = datetime.datetime(2026, 2, 10, 14, 0, tzinfo=datetime.UTC)
T1 = T0 + datetime.timedelta(minutes=15)
T2 = T1 + datetime.timedelta(minutes=15)


class Writes:
    def __init__(self):
        self.statements: list[str] = []

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip().split(" ", 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            self.statements.append(sql)
        return execute(sql, params, many, context)


@pytest.fixture
def board(settings, monkeypatch):
    with StandInGraphQL() as server:
        settings.GITHUB_TOKEN = TOKEN
        settings.GITHUB_API_URL = server.url
        server.slept = []
        client = functools.partial(GitHubClient, sleep=server.slept.append)
        monkeypatch.setattr(board_sync, "github_client", lambda: client(token=TOKEN, api_url=server.url))
        yield server


@pytest.fixture
def world(db, board):
    release = ReleaseFactory(version="1.36")
    node = SigFactory(slug="sig-node")
    SigFactory(slug="sig-auth")
    for number in (101, 102, 103, 104):
        KepFactory(number=number, owning_sig=node)
    PersonFactory(github="enh-shadow")
    board.add_project(241, "v1.36 Enhancements Tracking")
    board.add_project(200, "v1.35 Enhancements Tracking")
    board.add_item(
        241,
        issue=101,
        status="Tracked For Enhancement Freeze",
        stage="Beta",
        type="Major Change",
        sig="SIG Auth",
        prr_status="Approved",
        enhancements_contact="enh-shadow",
        note="waiting on API review",
    )
    board.add_item(241, issue=102, status="At Risk for Enhancements Freeze", stage="alpha", type="Net New")
    return release


def rows(release):
    return {row.kep.number: row for row in TrackedEnhancement.objects.filter(release=release).select_related("kep")}


def history(number):
    return list(
        EnhancementStatusChange.objects.filter(tracked_enhancement__kep__number=number).order_by("changed_at", "pk")
    )


def test_board_found_by_title_and_fields_mapped(world, board):
    report = board_release_sync(version="1.36", now=T0)
    world.refresh_from_db()
    assert world.board_project_number == 241  # found by title, remembered
    got = rows(world)
    assert set(got) == {101, 102}
    row = got[101]
    assert row.status == S.TRACKED_ENHANCEMENTS
    assert row.board_status == "Tracked For Enhancement Freeze"
    assert (row.target_stage, row.type, row.sig.slug, row.prr_status) == (
        "beta",
        "major_change",
        "sig-auth",
        "approved",
    )
    assert row.enhancements_contact.github == "enh-shadow"
    assert row.notes == "waiting on API review"
    assert got[102].status == S.AT_RISK_ENHANCEMENTS
    assert report.created == 2 and report.unknown == []
    # One query to find the board, one page of items; each cost a point.
    assert report.requests == 2 and report.points == 2
    (first,) = history(101)
    assert first.source == HistorySource.BOARD and first.changed_at == T0
    assert "first board sync" in first.note and first.assumed


def test_project_number_given_is_remembered(world, board):
    board.add_project(300, "something else entirely")
    board.add_item(300, issue=103, status="Tracked for code freeze")
    board_release_sync(version="1.36", project=300, now=T0)
    assert Release.objects.get(version="1.36").board_project_number == 300
    assert set(rows(world)) == {103}
    board_release_sync(version="1.36", now=T1)  # no --project: the remembered one, no search
    assert len(board.log) == 2
    assert all(entry["variables"].get("number") == 300 for entry in board.log)


def test_change_with_event_at_its_instant(world, board):
    board_release_sync(version="1.36", now=T0)
    at = T0 + datetime.timedelta(minutes=7, seconds=12)
    board.set_values(board.item(241, 102), status="Tracked for enhancements freeze")
    board.status_event(102, 241, at, "At Risk for Enhancements Freeze", "Tracked for enhancements freeze", "enh-lead")
    board.status_event(102, 999, at, "x", "Deferred", "other-board")  # another project's event: not ours
    report = board_release_sync(version="1.36", now=T1)
    changes = history(102)
    assert [(c.from_status, c.to_status) for c in changes] == [
        ("", S.AT_RISK_ENHANCEMENTS),
        (S.AT_RISK_ENHANCEMENTS, S.TRACKED_ENHANCEMENTS),
    ]
    exact = changes[1]
    assert exact.changed_at == at and exact.author == "enh-lead" and exact.observed_since is None
    assert report.history_added == 1 and report.observed == 0


def test_change_without_event_observed_between_two_syncs(world, board, client):
    board_release_sync(version="1.36", now=T0)
    board.set_values(board.item(241, 101), status="At risk for code freeze")
    board_release_sync(version="1.36", now=T1)
    last = history(101)[-1]
    assert (last.from_status, last.to_status) == (S.TRACKED_ENHANCEMENTS, S.AT_RISK_CODE)
    assert (last.observed_since, last.changed_at) == (T0, T1)
    assert "between 2026-02-10 14:00 and 14:15 UTC" in last.note
    # The read API says which instants are exact and which observed.
    body = client.get("/api/v1/status-changes/?kep=101&release=1.36").json()
    items = body["results"] if isinstance(body, dict) else body
    assert sorted(item["instant"] for item in items) == ["assumed", "observed"]
    # An event for the same change arriving late is not a second change: it dates the observed one.
    board.status_event(101, 241, T0 + datetime.timedelta(minutes=3), "Tracked...", "At risk for code freeze")
    report = board_release_sync(version="1.36", now=T2)
    assert len(history(101)) == 2 and report.history_added == 1 and report.dated == 1
    assert history(101)[-1].changed_at == T0 + datetime.timedelta(minutes=3)


def test_unknown_status_reported_and_stored_as_written(world, board):
    board_release_sync(version="1.36", now=T0)
    board.set_values(board.item(241, 102), status="Tracked (pending docs)", type="Spike")
    lines = []
    report = board_release_sync(version="1.36", now=T1, echo=lines.append)
    row = rows(world)[102]
    assert row.board_status == "Tracked (pending docs)"
    assert row.status == S.AT_RISK_ENHANCEMENTS and row.type == "net_new"  # nothing guessed
    assert len(history(102)) == 1
    assert lines == [
        "KEP-102: unknown status 'Tracked (pending docs)' on the board; kept as written",
        "KEP-102: unknown type 'Spike' on the board; not mapped",
    ]
    assert report.unknown == lines


def test_unchanged_resync_writes_nothing(world, board):
    board_release_sync(version="1.36", now=T0)
    writes = Writes()
    with connection.execute_wrapper(writes):
        report = board_release_sync(version="1.36", now=T1)
    assert report.unchanged == 2 and report.updated == 0 and report.history_added == 0
    # Only the heartbeat that opens the next observation window moves.
    assert len(writes.statements) == 1 and "sigtracker_heartbeat" in writes.statements[0], writes.statements
    assert Heartbeat.objects.get(name="board-sync:1.36").at == T1


def test_two_pages_read(world, board):
    for number in range(2000, 2130):
        KepFactory(number=number)
        board.add_item(241, issue=number, status="Tracked for enhancements freeze")
    report = board_release_sync(version="1.36", now=T0)
    assert report.items == 132 and report.created == 132
    assert report.requests == 3  # find, two pages of 100


def test_rate_limited_page_waits_until_reset(world, board):
    board.rate_limit_next(reset_in=2)
    report = board_release_sync(version="1.36", now=T0)
    assert report.created == 2
    assert len(board.slept) == 1 and 1 <= board.slept[0] <= 3.5


def test_rate_limited_far_ahead_stops(world, board):
    board.rate_limit_next(reset_in=3600)
    with pytest.raises(GitHubRateLimited, match="resets at"):
        board_release_sync(version="1.36", now=T0)
    assert not TrackedEnhancement.objects.exists() and board.slept == []


def test_502_retried_then_given_up(world, board):
    board.fail_next(502)
    report = board_release_sync(version="1.36", now=T0)
    assert report.created == 2 and board.slept == [0.5]
    for _ in range(5):
        board.fail_next(502)
    with pytest.raises(GitHubUnavailable, match="502"):
        board_release_sync(version="1.36", now=T1)


def test_schema_without_status_events_reads_board_observed(world, board):
    board._types.discard("ProjectV2ItemStatusChangedEvent")
    report = board_release_sync(version="1.36", now=T0)
    assert report.created == 2 and report.requests == 3  # the refused query, then the board without events


@pytest.mark.parametrize("refused_with", [200, 400])
def test_a_server_validating_against_githubs_published_schema_serves_the_whole_board(world, board, refused_with):
    """A server built from GitHub's published schema (which predates the status-change event) validates each
    query as graphql-core does: every query the sync sends is valid there but the one asking for the event, and
    that one's refusal, in GitHub's 200 or in a 400, turns the sync to the board without events."""
    board.strict = refused_with
    for number in range(2000, 2101):
        KepFactory(number=number)
        board.add_item(241, issue=number, status="Tracked for enhancements freeze", stage="Alpha")
    report = board_release_sync(version="1.36", now=T0)
    assert report.items == 103 and report.created == 103
    refused = [entry["refused"] for entry in board.log if "refused" in entry]
    assert len(refused) == 1, refused  # the first page's query with the event, and nothing else
    assert all("StatusChanged" in error["message"] or "STATUS_CHANGED" in error["message"] for error in refused[0])
    assert report.requests == 4  # find, the refused page, two pages of 100 without the event
    assert {row.status for row in rows(world).values()} >= {S.TRACKED_ENHANCEMENTS}
    assert all(change.source == HistorySource.BOARD for change in history(2000))


def test_a_query_the_server_cannot_run_is_named_in_the_error(world, board):
    """A refusal that is not about the optional event is the sync's error, with the server's own words."""
    from github_sync.github import GitHubError

    board.strict = 400
    with mock.patch.object(board_read, "FIND_QUERY", board_read.FIND_QUERY.replace("projectsV2", "projectsV3")):
        with pytest.raises(GitHubError, match="projectsV3"):
            board_release_sync(version="1.36", now=T0)


def test_board_wins_over_labels(world, board):
    kep = KepFactory(number=105)
    row = TrackedEnhancementFactory(release=world, kep=kep, status=S.TRACKED_CODE)
    EnhancementStatusChange.objects.create(
        tracked_enhancement=row, to_status=S.TRACKED_CODE, source=HistorySource.GITHUB, changed_at=T0
    )
    board.add_item(241, issue=105, status="Removed from Milestone")
    board_release_sync(version="1.36", now=T1)
    row.refresh_from_db()
    assert row.status == S.REMOVED


# --- with the labels: sync_github end to end, REST and GraphQL on one stand-in's port -------------------------
# (at github.com's paths, and at GitHub Enterprise Server's: REST under /api/v3, GraphQL at /api/graphql)

CYCLE = datetime.datetime(2026, 1, 12, 16, tzinfo=datetime.UTC)
EF = datetime.datetime(2026, 2, 12, 2, tzinfo=datetime.UTC)


@pytest.fixture
def both(db, github, monkeypatch):
    from releases.choices import MilestoneKind
    from releases.models import Milestone
    from tests.github.standin import labeled, milestoned, unlabeled

    graphql = StandInGraphQL()
    github.graphql = graphql
    monkeypatch.setattr(board_sync, "github_client", board_sync.github_client)
    release = ReleaseFactory(version="1.36", cycle_start=CYCLE.date(), planned_release_date=datetime.date(2026, 4, 22))
    Milestone.objects.create(release=release, kind=MilestoneKind.CYCLE_START, at=CYCLE)
    Milestone.objects.create(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=EF)
    node = SigFactory(slug="sig-node")
    for number in (201, 202):
        KepFactory(number=number, owning_sig=node)
    github.add_milestone("v1.36", number=50)
    opt = CYCLE + datetime.timedelta(days=2)
    github.add_issue(
        201,
        events=[
            labeled("sig/node", opt),
            milestoned("v1.36", opt),
            labeled("lead-opted-in", opt),
            labeled("tracked/yes", EF - datetime.timedelta(days=1)),
        ],
    )
    github.add_issue(
        202,
        events=[
            labeled("sig/node", opt),
            milestoned("v1.36", opt),
            labeled("lead-opted-in", opt),
            labeled("tracked/yes", EF - datetime.timedelta(days=2)),
            unlabeled("tracked/yes", EF + datetime.timedelta(days=3)),
            labeled("tracked/no", EF + datetime.timedelta(days=3)),
        ],
    )
    graphql.add_project(241, "v1.36 Enhancements Tracking")
    graphql.add_item(241, issue=201, status="Tracked for code freeze", stage="beta", type="Graduating", sig="SIG Auth")
    graphql.add_item(241, issue=202, status="Tracked for code freeze", stage="alpha", type="Net New")
    return release, graphql


@pytest.mark.parametrize("github", [False, True], indirect=True, ids=["github.com", "enterprise-server"])
def test_sync_github_reads_board_after_labels_and_lists_disagreements(both, client):
    from django.core.management import call_command

    from releases.selectors_board import board_label_disagreements

    release, graphql = both
    call_command("sync_github", "--release", "1.36", verbosity=0)
    release.refresh_from_db()
    assert release.board_project_number == 241
    got = rows(release)
    # The board wins for status, also where the labels say tracked/no.
    assert got[201].status == S.TRACKED_CODE and got[202].status == S.TRACKED_CODE
    sources = {c.source for c in history(202)}
    assert sources == {HistorySource.GITHUB, HistorySource.BOARD}
    (only,) = board_label_disagreements(release=release)
    assert (only.kep_number, only.board) == (202, "Tracked for code freeze")
    assert only.labels == "Removed from milestone"
    assert only.since is not None
    page = client.get("/releases/1.36/board-vs-labels/")
    assert page.status_code == 200
    assert b"#202" in page.content and b"#201" not in page.content
    assert got[201].sig.slug == "sig-auth"  # the board's SIG, though the label says sig/node
    # A second run: labels unchanged, board unchanged: nothing written but the board's heartbeat.
    writes = Writes()
    with connection.execute_wrapper(writes):
        call_command("sync_github", "--release", "1.36", verbosity=0)
    assert len(writes.statements) == 1 and "sigtracker_heartbeat" in writes.statements[0], writes.statements
    assert rows(release)[202].status == S.TRACKED_CODE and rows(release)[201].sig.slug == "sig-auth"


def test_exception_requests_from_board_including_a_draft(world, board, client):
    from releases.models import EnhancementException

    board.set_values(
        board.item(241, 101),
        exception_request_type="Enhancements Freeze",
        exception_status="Approved",
        request_date="2026-02-12",
        decision_date="2026-02-13",
        slack_thread="https://kubernetes.slack.com/archives/C2C40FMNF/p1",
        related_prs="https://github.com/kubernetes/enhancements/pull/9001",
        additional_time=3,
        liaison="enh-lead",
        notes="API review done",
    )
    board.add_item(
        241,
        issue=None,
        title="KEP-101: second request (code freeze)",
        exception_request_type="Code Freeze",
        exception_status="In Review",
        request_date="2026-03-20",
        related_prs="https://github.com/kubernetes/kubernetes/pull/1, https://github.com/kubernetes/kubernetes/pull/2",
    )
    report = board_release_sync(version="1.36", now=T0)
    assert report.exceptions_created == 2
    first, second = EnhancementException.objects.filter(release=world).order_by("requested_at")
    row = rows(world)[101]
    assert (first.freeze, first.decision, first.tracked_enhancement_id) == ("enhancements", "approved", row.pk)
    assert first.decided_at == datetime.datetime(2026, 2, 13, tzinfo=datetime.UTC)
    assert (first.additional_time, first.liaison, first.source) == ("3 days", "enh-lead", "board")
    assert first.thread_url.endswith("/p1") and first.notes == "API review done"
    assert (second.freeze, second.decision, second.decided_at) == ("code", "pending", None)
    assert second.tracked_enhancement_id == row.pk and second.kep_number == 101  # joined by the title's number
    assert second.pull_request_list == [
        "https://github.com/kubernetes/kubernetes/pull/1",
        "https://github.com/kubernetes/kubernetes/pull/2",
    ]
    body = client.get("/api/v1/exception-requests/?release=1.36&kep=101&freeze=code").json()
    items = body["results"] if isinstance(body, dict) else body
    assert [(i["title"], i["source"]) for i in items] == [("KEP-101: second request (code freeze)", "board")]
    # Decided on the board since: the same row updated; an unchanged board then writes nothing.
    board.set_values(board.projects[241]["items"][-1], exception_status="Rejected", decision_date="2026-03-21")
    report = board_release_sync(version="1.36", now=T1)
    assert (report.exceptions_created, report.exceptions_updated) == (0, 1)
    second.refresh_from_db()
    assert second.decision == "rejected"
    writes = Writes()
    with connection.execute_wrapper(writes):
        report = board_release_sync(version="1.36", now=T2)
    assert len(writes.statements) == 1, writes.statements


def test_board_vs_labels_page_queries_do_not_grow(world, board, client, django_assert_max_num_queries):
    for number in range(3000, 3030):
        kep = KepFactory(number=number)
        row = TrackedEnhancementFactory(
            release=world, kep=kep, status=S.TRACKED_CODE, board_status="Tracked for code freeze"
        )
        EnhancementStatusChange.objects.create(
            tracked_enhancement=row, to_status=S.REMOVED, source=HistorySource.GITHUB, changed_at=T0
        )
    with django_assert_max_num_queries(12):
        page = client.get("/releases/1.36/board-vs-labels/")
    assert page.status_code == 200 and page.content.count(b"<tr>") == 31  # header and 30 rows


def test_beat_reads_the_board_after_the_labels(db, github):
    from github_sync.tasks import sync_github_current_release
    from releases.choices import MilestoneKind
    from releases.models import Milestone
    from tests.github.standin import labeled, milestoned

    now = datetime.datetime.now(datetime.UTC)
    release = Release.objects.create(version="1.36", cycle_start=(now - datetime.timedelta(days=20)).date())
    Milestone.objects.create(release=release, kind=MilestoneKind.CYCLE_START, at=now - datetime.timedelta(days=20))
    Milestone.objects.create(release=release, kind=MilestoneKind.RELEASE, at=now + datetime.timedelta(days=60))
    KepFactory(number=301)
    github.add_milestone("v1.36", number=60)
    opt = now - datetime.timedelta(days=10)
    github.add_issue(301, events=[milestoned("v1.36", opt), labeled("lead-opted-in", opt)])
    # Without a GraphQL endpoint (the REST stand-in alone), beat reads the labels and says nothing of a board.
    assert "board" not in sync_github_current_release.apply().get()
    graphql = StandInGraphQL()
    github.graphql = graphql
    graphql.add_project(250, "v1.36 Enhancements Tracking")
    graphql.add_item(250, issue=301, status="At risk for code freeze", prr_status="In Review")
    result = sync_github_current_release.apply().get()
    assert "v1.36 board #250: 1 items read" in result
    row = rows(release)[301]
    assert (row.status, row.prr_status) == (S.AT_RISK_CODE, "in_review")


def test_a_kepless_row_is_left_alone(world):
    # A feature sheet's feature naming no KEP is no item of the board: the sync leaves it as the sheet made it.
    from community.models import Sig
    from releases.services.tracking import tracked_enhancement_create

    row = tracked_enhancement_create(
        release=world,
        feature_name="Old feature",
        sig=Sig.objects.get(slug="sig-node"),
        status=S.DONE,
        source=HistorySource.FEATURE_SHEET,
    )
    board_release_sync(version="1.36", now=T0)
    row.refresh_from_db()
    assert (row.status, row.board_status, row.history.count()) == (S.DONE, "", 1)
    assert TrackedEnhancement.objects.filter(release=world, kep__isnull=False).count() == 2


@pytest.mark.parametrize(
    "api_url,endpoint",
    [
        ("https://api.github.com", "https://api.github.com/graphql"),
        ("https://api.github.com/", "https://api.github.com/graphql"),
        ("https://github.example.com/api/v3", "https://github.example.com/api/graphql"),
        ("https://github.example.com/api/v3/", "https://github.example.com/api/graphql"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/graphql"),
    ],
)
def test_graphql_endpoint_follows_the_rest_base_url(api_url, endpoint):
    from github_sync.github.graphql import graphql_url

    assert graphql_url(api_url) == endpoint
