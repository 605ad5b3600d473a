"""sync_github end to end against the stand-in GitHub: each rule of the table lands as rows with its instants."""

import datetime

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from github_sync.services.github_sync import github_release_sync
from keps.models import Kep
from releases.choices import EnhancementStatus as S
from releases.choices import MilestoneKind
from releases.models import EnhancementStatusChange, Milestone, Release, TrackedEnhancement
from tests.factories import KepFactory, SigFactory
from tests.github.standin import (
    closed,
    commented,
    cross_referenced,
    demilestoned,
    labeled,
    milestoned,
    unlabeled,
)

D = datetime.timedelta
CYCLE = datetime.datetime(2025, 9, 15, 16, tzinfo=datetime.UTC)
EF = datetime.datetime(2025, 10, 17, 1, tzinfo=datetime.UTC)
CF = datetime.datetime(2025, 11, 7, 2, tzinfo=datetime.UTC)
R = datetime.datetime(2025, 12, 17, 17, tzinfo=datetime.UTC)


class Writes:
    """Counts INSERT/UPDATE/DELETE statements on this connection."""

    def __init__(self):
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip().split(" ", 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            self.count += 1
        return execute(sql, params, many, context)


def make_release():
    release = Release.objects.create(version="1.35", cycle_start=CYCLE.date())
    for kind, at in (
        (MilestoneKind.CYCLE_START, CYCLE),
        (MilestoneKind.ENHANCEMENTS_FREEZE, EF),
        (MilestoneKind.CODE_FREEZE, CF),
        (MilestoneKind.RELEASE, R),
    ):
        Milestone.objects.create(release=release, kind=kind, at=at)
    return release


def scenario(github):
    github.add_milestone("v1.34", number=40)
    github.add_milestone("v1.35", number=41, due_on=R)
    opt = CYCLE + D(days=2)
    chatter = [commented(f"status update {n}", opt + D(hours=n), number=101) for n in range(1, 110)]
    github.add_issue(
        101,
        title="KEP-101: In-place pod resize",
        assignees=["alice", "bob"],
        events=[
            labeled("sig/node", CYCLE - D(days=90), "alice"),
            labeled("stage/beta", opt, "alice"),
            milestoned("v1.35", opt, "sig-node-lead"),
            labeled("lead-opted-in", opt + D(minutes=5), "sig-node-lead"),
            cross_referenced(opt + D(days=1)),
            *chatter,
            labeled("tracked/yes", EF - D(days=2), "enh-shadow"),
        ],
    )
    github.add_issue(
        102,
        title="KEP-102: Swap",
        events=[
            labeled("sig/node", CYCLE - D(days=90)),
            milestoned("v1.35", opt, "sig-node-lead"),
            labeled("lead-opted-in", opt, "sig-node-lead"),
            labeled("tracked/yes", EF - D(days=3), "enh-shadow"),
            unlabeled("tracked/yes", CF + D(hours=1), "enh-lead"),
            labeled("tracked/no", CF + D(hours=1), "enh-lead"),
            demilestoned("v1.35", CF + D(hours=1, minutes=1), "enh-lead"),
        ],
    )
    github.add_issue(103, title="KEP-103: never opted in", events=[milestoned("v1.35", opt, "author")])
    github.add_issue(104, title="A PR in the milestone", pull_request=True, events=[milestoned("v1.35", opt)])
    github.add_issue(105, title="KEP-105: elsewhere", events=[milestoned("v1.34", opt), closed(opt + D(days=1))])
    github.add_issue(106, title="KEP-106: broken", events=[milestoned("v1.35", opt), labeled("lead-opted-in", opt)])
    github.timelines[106].append({"event": "labeled", "created_at": "2025-10-01T00:00:00Z", "label": None})


@pytest.fixture
def synced(db, github):
    release = make_release()
    KepFactory(number=102, owning_sig=SigFactory(slug="sig-node"), title="Node swap")
    scenario(github)
    github.fail_next("/issues/101/timeline", 502)
    github.rate_limit_next("/issues/102/timeline", reset_in=1)
    report = github_release_sync(version="1.35", repo="kubernetes/enhancements")
    return release, report


def history(number):
    return list(
        EnhancementStatusChange.objects.filter(tracked_enhancement__kep__number=number)
        .order_by("changed_at", "pk")
        .values_list("changed_at", "to_status", "author", "source", "link")
    )


def test_tracked_set_statuses_and_instants(synced, github):
    release, report = synced
    # The 502 was retried after its backoff, the rate limit waited out until its reset and a second more.
    waits = sorted(github.slept)
    assert len(waits) == 2 and waits[0] == 0.5 and 1 <= waits[1] <= 2, github.slept
    rows = {te.kep.number: te for te in TrackedEnhancement.objects.filter(release=release).select_related("kep", "sig")}
    assert set(rows) == {101, 102}  # 103 never opted in, 104 is a PR, 105 elsewhere, 106 malformed
    opt = CYCLE + D(days=2)
    url = "https://github.com/kubernetes/enhancements/issues/101"
    assert history(101) == [
        (opt + D(minutes=5), S.AT_RISK_ENHANCEMENTS, "sig-node-lead", "github", url),
        (EF - D(days=2), S.TRACKED_ENHANCEMENTS, "enh-shadow", "github", url),
        (R, S.DONE, "", "github", url),
    ]
    assert [(at, status, author) for at, status, author, *_ in history(102)] == [
        (opt, S.AT_RISK_ENHANCEMENTS, "sig-node-lead"),
        (EF - D(days=3), S.TRACKED_ENHANCEMENTS, "enh-shadow"),
        (CF + D(hours=1), S.REMOVED, "enh-lead"),
    ]
    te101, te102 = rows[101], rows[102]
    assert te101.status == S.DONE and te101.target_stage == "beta" and te101.sig.slug == "sig-node"
    assert te101.assignee.github == "alice" and te101.created_at == opt + D(minutes=5)
    assert te102.status == S.REMOVED and te102.github_issue_number == 102
    stub = Kep.objects.get(number=101)
    assert stub.is_stub and stub.title == "KEP-101: In-place pod resize"
    assert sorted(stub.authors.values_list("github", flat=True)) == ["alice", "bob"]
    assert not Kep.objects.get(number=102).is_stub
    assert report.not_opted_in == [103]
    assert len(report.skipped) == 1 and report.skipped[0].startswith("issue #106:")
    assert report.created == 2 and report.history_added == 6 and report.retries == 2
    # the demilestoned KEP was found through its timeline, and the two-page timeline was read to its end
    assert len(github.requests_to("/issues/101/timeline")) == 3  # the 502, then two pages


def test_resync_unchanged_costs_only_304s_and_writes_nothing(synced, github):
    before = len(github.log)
    writes = Writes()
    with connection.execute_wrapper(writes):
        report = github_release_sync(version="1.35", repo="kubernetes/enhancements")
    statuses = {entry["status"] for entry in github.log[before:]}
    assert statuses == {304} and report.not_modified == report.requests
    assert writes.count == 0 and report.unchanged == 2 and report.created == report.updated == 0


def test_a_new_event_updates_only_that_issue(synced, github):
    github.timelines[102].insert(3, labeled("stage/alpha", EF - D(days=4)))
    report = github_release_sync(version="1.35", repo="kubernetes/enhancements")
    assert (report.updated, report.unchanged, report.history_added) == (1, 1, 0)
    assert TrackedEnhancement.objects.get(kep__number=102).target_stage == "alpha"


def test_admin_history_keeps_its_rows(synced, github):
    te = TrackedEnhancement.objects.get(kep__number=101)
    EnhancementStatusChange.objects.create(
        tracked_enhancement=te, to_status=S.AT_RISK_CODE, changed_at=CF, author="curator", source="admin"
    )
    github_release_sync(version="1.35", repo="kubernetes/enhancements")
    assert EnhancementStatusChange.objects.filter(tracked_enhancement=te, source="admin").count() == 1


def test_dry_run_writes_nothing(db, github, capsys):
    make_release()
    scenario(github)
    writes = Writes()
    with connection.execute_wrapper(writes):
        with pytest.raises(CommandError):  # issue #106 is skipped: exit 1
            call_command("sync_github", "--release", "1.35", "--dry-run")
    assert writes.count == 0 and not TrackedEnhancement.objects.exists()
    out = capsys.readouterr().out
    assert "would create 2" in out and "would create KEP-101" in out


def test_missing_token_is_one_line_and_exit_2(db, settings):
    settings.GITHUB_TOKEN = ""
    with pytest.raises(CommandError) as raised:
        call_command("sync_github", "--release", "1.35")
    assert raised.value.returncode == 2 and "GITHUB_TOKEN" in str(raised.value)


def test_bad_repo_names_the_repo(db, github):
    make_release()
    with pytest.raises(CommandError) as raised:
        call_command("sync_github", "--release", "1.35", "--repo", "kubernetes/nope")
    assert raised.value.returncode == 2 and "--repo" in str(raised.value)


def test_rate_limit_far_ahead_stops_with_exit_1_and_keeps_what_synced(db, github):
    make_release()
    scenario(github)
    github.rate_limit_next("/issues/106/timeline", reset_in=3600)
    with pytest.raises(CommandError) as raised:
        call_command("sync_github", "--release", "1.35", verbosity=0)
    assert raised.value.returncode == 1 and "resets at" in str(raised.value)


def test_a_kepless_row_is_left_alone(db, github):
    # A feature sheet's feature naming no KEP has no tracking issue: the sync, which reads every row of the release
    # by its KEP number, leaves it as the sheet made it.
    from releases.choices import HistorySource
    from releases.services.tracking import tracked_enhancement_create

    release = make_release()
    sig = SigFactory(slug="sig-node")
    KepFactory(number=102, owning_sig=sig, title="Node swap")
    row = tracked_enhancement_create(
        release=release, feature_name="Old feature", sig=sig, status=S.DONE, source=HistorySource.FEATURE_SHEET
    )
    scenario(github)
    report = github_release_sync(version="1.35", repo="kubernetes/enhancements")
    assert report.created == 2
    row.refresh_from_db()
    assert (row.status, row.github_issue_url, row.history.count()) == (S.DONE, "", 1)
    assert TrackedEnhancement.objects.filter(release=release).count() == 3
