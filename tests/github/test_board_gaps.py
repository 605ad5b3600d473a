"""The board on a fresh install, after one issue's 404, and all of its moves kept; the labels and the board sharing
one deadline. Against the REST and GraphQL stand-ins over real HTTP."""

import datetime
import time

import pytest
from django.core.management import CommandError, call_command

from github_sync.services import board_sync
from github_sync.services.board_sync import board_release_sync
from keps.models import Kep
from releases.choices import EnhancementStatus as S
from releases.choices import MilestoneKind
from releases.models import EnhancementStatusChange, Milestone, Release, TrackedEnhancement
from tests.factories import KepFactory, ReleaseFactory, SigFactory
from tests.github.graphql_standin import StandInGraphQL
from tests.github.standin import TOKEN, labeled, milestoned

T0 = datetime.datetime(2026, 10, 10, 14, 0, tzinfo=datetime.UTC)
T1 = T0 + datetime.timedelta(days=5)


@pytest.fixture
def board(settings, monkeypatch):
    from github_sync.github import GitHubClient

    with StandInGraphQL() as server:
        settings.GITHUB_TOKEN = TOKEN
        settings.GITHUB_API_URL = server.url
        monkeypatch.setattr(board_sync, "github_client", lambda: GitHubClient(token=TOKEN, api_url=server.url))
        server.add_project(241, "v1.36 Enhancements Tracking")
        yield server


def history(number):
    return list(
        EnhancementStatusChange.objects.filter(tracked_enhancement__kep__number=number).order_by("changed_at", "pk")
    )


def statuses(release):
    return dict(TrackedEnhancement.objects.filter(release=release).values_list("kep__number", "status"))


@pytest.mark.django_db
def test_on_a_fresh_install_board_items_become_stub_keps_never_dropped(board):
    release = ReleaseFactory(version="1.36")
    board.add_item(241, issue=1287, title="In-place Update of Pod Resources", status="Tracked for code freeze",
                   sig="SIG Node", type="Graduating")  # fmt: skip
    board.add_item(241, issue=5328, title="A KEP merged near the freeze", status="At risk for enhancements freeze",
                   sig="sig-apps")  # fmt: skip
    report = board_release_sync(version="1.36", now=T0)
    assert statuses(release) == {1287: S.TRACKED_CODE, 5328: S.AT_RISK_ENHANCEMENTS}
    stub = Kep.objects.get(number=1287)
    assert stub.is_stub and stub.title == "In-place Update of Pod Resources" and stub.owning_sig.slug == "sig-node"
    assert Kep.objects.get(number=5328).owning_sig.slug == "sig-apps"
    assert report.stubs == 2 and report.skipped == [] and "2 new KEPs as stubs" in report.summary()
    again = board_release_sync(version="1.36", now=T1)  # the next sync finds them: no second stub
    assert Kep.objects.filter(number=1287).count() == 1 and again.stubs == 0 and again.unchanged == 2


@pytest.mark.django_db
def test_an_unknown_status_on_a_new_item_is_reported_and_kept(board):
    release = ReleaseFactory(version="1.36")
    KepFactory(number=3673, owning_sig=SigFactory(slug="sig-node"))
    board.add_item(241, issue=3673, status="Needs Triage")
    lines = []
    board_release_sync(version="1.36", now=T0, echo=lines.append)
    row = TrackedEnhancement.objects.get(release=release, kep__number=3673)
    assert row.board_status == "Needs Triage" and row.status == S.AT_RISK_ENHANCEMENTS
    assert any("unknown status 'Needs Triage'" in line and "kept" in line for line in lines), lines
    board.set_values(board.item(241, 3673), status="Tracked for code freeze")
    board_release_sync(version="1.36", now=T1)
    row.refresh_from_db()
    assert (row.status, row.board_status) == (S.TRACKED_CODE, "Tracked for code freeze")


@pytest.mark.django_db
def test_every_event_of_a_new_item_is_kept_at_its_instant(board):
    release = ReleaseFactory(version="1.36")
    KepFactory(number=1287, owning_sig=SigFactory(slug="sig-node"))
    board.add_item(241, issue=1287, status="Tracked for code freeze")
    first, second = T0 - datetime.timedelta(days=20), datetime.datetime(2026, 10, 13, 9, 30, tzinfo=datetime.UTC)
    board.status_event(1287, 241, first, "", "At risk for enhancements freeze", "enh-shadow")
    board.status_event(1287, 241, second, "At risk for enhancements freeze", "Tracked for code freeze", "enh-lead")
    board_release_sync(version="1.36", now=T0 + datetime.timedelta(days=3))
    changes = history(1287)
    assert [(c.from_status, c.to_status, c.changed_at, c.author) for c in changes] == [
        ("", S.AT_RISK_ENHANCEMENTS, first, "enh-shadow"),
        (S.AT_RISK_ENHANCEMENTS, S.TRACKED_CODE, second, "enh-lead"),
    ]
    assert TrackedEnhancement.objects.get(release=release).status == S.TRACKED_CODE


@pytest.mark.django_db
def test_a_change_without_an_event_is_recorded_in_the_window_of_the_syncs_that_saw_it(board):
    ReleaseFactory(version="1.36")
    KepFactory(number=3673, owning_sig=SigFactory(slug="sig-node"))
    board.add_item(241, issue=3673, status="At risk for code freeze")
    board_release_sync(version="1.36", now=T0)
    board.set_values(board.item(241, 3673), status="Tracked for code freeze")
    board_release_sync(version="1.36", now=T1)
    last = history(3673)[-1]
    assert (last.from_status, last.to_status) == (S.AT_RISK_CODE, S.TRACKED_CODE)
    assert last.observed_since == T0 and last.changed_at == T1


@pytest.mark.django_db
def test_an_event_read_after_its_change_was_observed_supersedes_the_observed_row(board):
    release = ReleaseFactory(version="1.36")
    KepFactory(number=3673, owning_sig=SigFactory(slug="sig-node"))
    board.add_item(241, issue=3673, status="At risk for code freeze")
    board_release_sync(version="1.36", now=T0)
    board.set_values(board.item(241, 3673), status="Tracked for code freeze")
    board_release_sync(version="1.36", now=T1)  # no event yet: observed in (T0, T1]
    (observed,) = EnhancementStatusChange.objects.filter(observed_since=T0)
    assert observed.changed_at == T1
    # GitHub's timeline now has the change's event, dated between the two syncs that saw it.
    at = datetime.datetime(2026, 10, 13, 9, 30, tzinfo=datetime.UTC)
    board.status_event(3673, 241, at, "At risk for code freeze", "Tracked for code freeze", "enh-lead")
    report = board_release_sync(version="1.36", now=T1 + datetime.timedelta(hours=1))
    last = history(3673)[-1]
    assert (last.from_status, last.to_status, last.changed_at, last.author) == (
        S.AT_RISK_CODE,
        S.TRACKED_CODE,
        at,
        "enh-lead",
    )
    assert last.observed_since is None and last.supersedes_id == observed.pk and last.source == observed.source
    assert len(history(3673)) == 2  # the observed row is out of the history as it now stands, kept in the record
    assert EnhancementStatusChange.all_objects.filter(pk=observed.pk).exists()
    assert report.history_added == 1 and report.dated == 1 and "1 dating an observed change" in report.summary()
    assert TrackedEnhancement.objects.get(release=release).status == S.TRACKED_CODE
    # A third sync reads the same event: nothing more to write.
    before = EnhancementStatusChange.all_objects.count()
    again = board_release_sync(version="1.36", now=T1 + datetime.timedelta(hours=2))
    assert EnhancementStatusChange.all_objects.count() == before and again.history_added == 0 and again.unchanged == 1


@pytest.mark.django_db
def test_dating_an_older_observed_change_leaves_the_status_at_the_latest_change(board):
    release = ReleaseFactory(version="1.36")
    KepFactory(number=3673, owning_sig=SigFactory(slug="sig-node"))
    board.add_item(241, issue=3673, status="At risk for code freeze")
    board_release_sync(version="1.36", now=T0)
    board.set_values(board.item(241, 3673), status="Tracked for code freeze")
    board_release_sync(version="1.36", now=T1)  # observed
    moved = T1 + datetime.timedelta(hours=1)
    board.set_values(board.item(241, 3673), status="Removed from milestone")
    board.status_event(3673, 241, moved, "Tracked for code freeze", "Removed from milestone", "enh-lead")
    board_release_sync(version="1.36", now=T1 + datetime.timedelta(hours=2))
    at = datetime.datetime(2026, 10, 13, 9, 30, tzinfo=datetime.UTC)
    board.status_event(3673, 241, at, "At risk for code freeze", "Tracked for code freeze", "enh-lead")
    report = board_release_sync(version="1.36", now=T1 + datetime.timedelta(hours=3))
    assert report.dated == 1
    assert [(c.to_status, c.changed_at) for c in history(3673)[1:]] == [(S.TRACKED_CODE, at), (S.REMOVED, moved)]
    assert TrackedEnhancement.objects.get(release=release).status == S.REMOVED


@pytest.mark.django_db
def test_an_event_outside_the_observed_window_is_not_taken_for_the_observed_change(board):
    ReleaseFactory(version="1.36")
    KepFactory(number=3673, owning_sig=SigFactory(slug="sig-node"))
    board.add_item(241, issue=3673, status="At risk for code freeze")
    board_release_sync(version="1.36", now=T0)
    board.set_values(board.item(241, 3673), status="Tracked for code freeze")
    board_release_sync(version="1.36", now=T1)
    # An older move to the same status (before the sync that still saw "at risk"): not this change's event.
    early = T0 - datetime.timedelta(days=2)
    board.status_event(3673, 241, early, "At risk for code freeze", "Tracked for code freeze", "enh-lead")
    report = board_release_sync(version="1.36", now=T1 + datetime.timedelta(hours=1))
    last = history(3673)[-1]
    assert (last.changed_at, last.observed_since) == (T1, T0) and report.history_added == 0


def _as_member(node: dict, column: str, member: dict) -> dict:
    """`node` with the value of `column` sent as another member of the field value union."""
    for value in node["fieldValues"]["nodes"]:
        if value["field"]["name"] == column:
            value.clear()
            value.update({**member, "field": {"name": column}})
    return node


@pytest.mark.django_db
def test_type_and_prr_status_are_read_from_each_member_of_the_field_value_union(board):
    release = ReleaseFactory(version="1.36")
    KepFactory(number=1287, owning_sig=SigFactory(slug="sig-node"))
    board.add_item(241, issue=1287, status="Tracked for code freeze", type="x", prr_status="x", stage="x")
    node = board._node
    members = {
        "Type": {"__typename": "ProjectV2ItemFieldIterationValue", "title": "Graduating"},
        "PRR Status": {"__typename": "ProjectV2ItemFieldLabelValue", "labels": {"nodes": [{"name": "Approved"}]}},
        "Stage": {"__typename": "ProjectV2ItemFieldMilestoneValue", "milestone": {"title": "Beta"}},
    }

    def served(item, project, with_events):
        built = node(item, project, with_events)
        for column, member in members.items():
            _as_member(built, column, member)
        return built

    board._node = served
    board.strict = 200  # the query must be valid against GitHub's published schema
    board_release_sync(version="1.36", now=T0)
    row = TrackedEnhancement.objects.get(release=release)
    assert (row.type, row.prr_status, row.target_stage) == ("graduating", "approved", "beta")
    # The schema file predates the status-change event: that query is refused, and the board read without it.
    assert "refused" not in board.log[-1]
    assert all("STATUS_CHANGED" in str(entry["refused"]) for entry in board.log if "refused" in entry)


# --- with the labels ------------------------------------------------------------------------------------------------


CYCLE = datetime.datetime(2026, 9, 14, tzinfo=datetime.UTC)


@pytest.fixture
def both(db, github):
    graphql = StandInGraphQL()
    github.graphql = graphql
    release = ReleaseFactory(version="1.36", cycle_start=CYCLE.date(), planned_release_date=datetime.date(2026, 12, 16))
    Milestone.objects.create(release=release, kind=MilestoneKind.CYCLE_START, at=CYCLE)
    node = SigFactory(slug="sig-node")
    github.add_milestone("v1.36", number=50)
    opt = CYCLE + datetime.timedelta(days=2)
    graphql.add_project(241, "v1.36 Enhancements Tracking")
    for number in (3673, 5328):
        KepFactory(number=number, owning_sig=node)
        github.add_issue(
            number, events=[labeled("sig/node", opt), milestoned("v1.36", opt), labeled("lead-opted-in", opt)]
        )
        graphql.add_item(241, issue=number, status="At risk for code freeze", sig="SIG Node")
    return release, graphql


def test_one_issues_404_is_a_skip_line_and_the_rest_and_the_board_are_synced(both, github, capsys):
    release, graphql = both
    call_command("sync_github", "--release", "1.36", verbosity=0)
    del github.issues[5328], github.timelines[5328]  # deleted (or transferred out of reach, or hidden)
    graphql.set_values(graphql.item(241, 3673), status="Tracked for code freeze")
    with pytest.raises(CommandError) as raised:
        call_command("sync_github", "--release", "1.36", verbosity=0)
    assert raised.value.returncode == 1 and "1 issue(s) skipped" in str(raised.value)
    assert "issue #5328: GitHub has it no more (404" in capsys.readouterr().err
    assert statuses(release)[3673] == S.TRACKED_CODE  # the board was read after the skip


def test_the_repositorys_own_404_is_a_usage_error(both):
    with pytest.raises(CommandError) as raised:
        call_command("sync_github", "--release", "1.36", "--repo", "kubernetes/gone", verbosity=0)
    assert raised.value.returncode == 2 and "kubernetes/gone" in str(raised.value) and "--repo" in str(raised.value)


def test_beat_reads_labels_and_board_under_one_deadline(both, github, settings):
    from github_sync.tasks import sync_github_current_release

    release, graphql = both
    Release.objects.filter(pk=release.pk).update(state="active")
    settings.GITHUB_SYNC_DEADLINE = 4
    github.latency = 0.6  # the labels take a good part of the deadline
    graphql.latency = 30  # and the board would hang past it
    started = time.monotonic()
    result = sync_github_current_release.apply().get()
    elapsed = time.monotonic() - started
    assert "Board: failed" in result and "deadline" in result, result
    assert elapsed < settings.GITHUB_SYNC_DEADLINE + 1.5, f"the board ran {elapsed:.1f} s past one 4 s deadline"


def test_beat_skips_a_wrongly_typed_board_item_in_one_line_and_syncs_the_rest(both, caplog):
    from github_sync.tasks import sync_github_current_release

    release, graphql = both
    Release.objects.filter(pk=release.pk).update(state="active")
    graphql.set_values(graphql.item(241, 3673), status="Tracked for code freeze")
    graphql.set_values(graphql.item(241, 5328), status="Tracked for code freeze")
    node = graphql._node

    def spoiled(item, project, with_events):
        built = node(item, project, with_events)
        if item["issue"] == 5328:
            built["content"]["number"] = {"value": 5328}  # an object where the schema says Int
        return built

    graphql._node = spoiled
    result = sync_github_current_release.apply().get()
    assert "board #241: 1 items read" in result, result
    assert statuses(release) == {3673: S.TRACKED_CODE, 5328: S.AT_RISK_ENHANCEMENTS}  # as its labels left it
    assert "Traceback" not in caplog.text
    assert any("not as documented" in record.getMessage() for record in caplog.records)


def test_an_issue_transferred_elsewhere_is_followed_within_the_api_and_skipped(both, github, capsys):
    release, graphql = both
    call_command("sync_github", "--release", "1.36", "--no-board", verbosity=0)
    del github.issues[5328], github.timelines[5328]
    respond = github._respond

    def transferred(handler):
        if handler.path.endswith("/issues/5328"):  # GitHub's answer for an issue moved to another repository
            return 301, {"Location": f"{github.url}/repos/kubernetes/enhancements/issues/3673"}, {}
        return respond(handler)

    github._respond = transferred
    with pytest.raises(CommandError) as raised:
        call_command("sync_github", "--release", "1.36", "--no-board", verbosity=0)
    assert raised.value.returncode == 1
    assert "issue #5328: GitHub has it no more (301" in capsys.readouterr().err
    assert any(entry["path"].endswith("/issues/3673") for entry in github.log)  # followed, within the API
    assert set(statuses(release)) == {3673, 5328}  # nothing written for 5328 from another issue's answer


@pytest.mark.django_db
def test_the_handbooks_column_names_are_read(board):
    from releases.models import EnhancementException

    release = ReleaseFactory(version="1.36")
    KepFactory(number=1287, owning_sig=SigFactory(slug="sig-node"))
    board.add_item(
        241,
        issue=1287,
        status="Exception pending",
        enhancement_type="Graduating",
        exception_request_type="Code and Test Freeze",
        exception_status="In Review",
        exception_request_date="2026-10-20",
        exception_request_slack_thread="https://kubernetes.slack.com/archives/C2C40FMNF/p2",
        exception_related_prs="https://github.com/kubernetes/kubernetes/pull/7",
        exception_request_notes="waiting on API review",
    )
    board_release_sync(version="1.36", now=T0)
    row = TrackedEnhancement.objects.get(release=release)
    assert row.type == "graduating"
    request = EnhancementException.objects.get()
    assert request.requested_at.date() == datetime.date(2026, 10, 20)
    assert request.thread_url.endswith("/p2") and request.pull_request_urls.endswith("/pull/7")
    assert request.notes == "waiting on API review"
