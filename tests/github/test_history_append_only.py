"""History is append-only, through the sync against the stand-in GitHub: when GitHub renames the actors of a
timeline (a user rename), the re-sync keeps every row it wrote before and adds corrections that supersede them;
the summary counts them; the KEP page shows them as superseded. And the model refuses tracked enhancements made
outside the tracking service."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from github_sync.services.github_sync import github_release_sync
from releases.choices import MilestoneKind
from releases.models import EnhancementStatusChange, Milestone, Release, StatusWriteRefused, TrackedEnhancement
from tests.factories import KepFactory, ReleaseFactory, SigFactory
from tests.github.standin import demilestoned, labeled, milestoned, unlabeled

pytestmark = pytest.mark.django_db

D = datetime.timedelta
CYCLE = datetime.datetime(2025, 9, 15, 16, tzinfo=datetime.UTC)
EF = datetime.datetime(2025, 10, 17, 1, tzinfo=datetime.UTC)
CF = datetime.datetime(2025, 11, 7, 2, tzinfo=datetime.UTC)
R = datetime.datetime(2025, 12, 17, 17, tzinfo=datetime.UTC)


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
    """KEP-101 tracked through to release day; KEP-102 tracked, then removed at code freeze."""
    github.add_milestone("v1.35", number=41, due_on=R)
    opt = CYCLE + D(days=2)
    github.add_issue(
        101,
        title="KEP-101: In-place pod resize",
        events=[
            labeled("sig/node", CYCLE - D(days=90), "alice"),
            labeled("stage/beta", opt, "alice"),
            milestoned("v1.35", opt, "sig-node-lead"),
            labeled("lead-opted-in", opt + D(minutes=5), "sig-node-lead"),
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


def rows_of(number):
    return list(
        EnhancementStatusChange.all_objects.filter(tracked_enhancement__kep__number=number)
        .order_by("pk")
        .values_list("pk", "changed_at", "from_status", "to_status", "author", "note", "supersedes", "withdrawn")
    )


def test_a_renamed_actor_supersedes_history_rows_and_deletes_none(github, client):
    make_release()
    KepFactory(number=102, owning_sig=SigFactory(slug="sig-node"), title="Node swap")
    scenario(github)
    github_release_sync(version="1.35", repo="kubernetes/enhancements")
    before = {number: rows_of(number) for number in (101, 102)}
    assert all(before.values())

    # GitHub renamed two users: every event they made now names the new login.
    renames = {"enh-shadow": "enh-shadow-2026", "sig-node-lead": "node-lead"}
    for timeline in github.timelines.values():
        for event in timeline:
            actor = event.get("actor") or {}
            if actor.get("login") in renames:
                actor["login"] = renames[actor["login"]]
    with CaptureQueriesContext(connection) as queries:
        report = github_release_sync(version="1.35", repo="kubernetes/enhancements")
    assert not [q["sql"] for q in queries.captured_queries if "DELETE" in q["sql"] and "statuschange" in q["sql"]]

    for number, old in before.items():
        now = rows_of(number)
        # Every row written before is still there, unchanged.
        assert now[: len(old)] == old
        corrections = now[len(old) :]
        assert corrections and all(row[6] is not None and not row[7] for row in corrections)
        # The history as it now stands names the new logins only.
        current = EnhancementStatusChange.objects.filter(tracked_enhancement__kep__number=number)
        assert not current.filter(author__in=list(renames)).exists()
    superseded = sum(len(rows_of(n)) - len(before[n]) for n in before)
    assert report.history_superseded == superseded == report.history_added
    assert f"superseded {superseded}" in report.summary()

    # An unchanged re-sync adds and supersedes nothing.
    again = github_release_sync(version="1.35", repo="kubernetes/enhancements")
    assert again.history_added == again.history_superseded == 0

    page = client.get("/keps/101/").content.decode()
    assert "history rows superseded" in page and "<del>" in page and "enh-shadow-2026" in page


def test_an_event_github_no_longer_reports_is_withdrawn_not_deleted(github):
    make_release()
    scenario(github)
    github_release_sync(version="1.35", repo="kubernetes/enhancements")
    old = rows_of(101)
    # GitHub dropped the tracked/yes event (e.g. a label event rewritten away): that change is withdrawn.
    github.timelines[101] = [e for e in github.timelines[101] if (e.get("label") or {}).get("name") != "tracked/yes"]
    report = github_release_sync(version="1.35", repo="kubernetes/enhancements")
    now = rows_of(101)
    assert now[: len(old)] == old
    assert report.history_superseded >= 1
    assert any(row[7] and row[6] is not None for row in now[len(old) :])  # a withdrawal superseding a row


def test_the_model_refuses_tracked_enhancements_made_outside_the_tracking_service():
    release, kep = ReleaseFactory(version="1.36"), KepFactory()
    with pytest.raises(StatusWriteRefused):
        TrackedEnhancement(release=release, kep=kep, sig=kep.owning_sig, status="tracked_enhancements").save()
    with pytest.raises(StatusWriteRefused):
        TrackedEnhancement.objects.create(release=release, kep=kep, sig=kep.owning_sig, status="done")
    with pytest.raises(StatusWriteRefused):
        TrackedEnhancement.objects.bulk_create(
            [TrackedEnhancement(release=release, kep=kep, sig=kep.owning_sig, status="done")]
        )
    assert not TrackedEnhancement.objects.exists()
