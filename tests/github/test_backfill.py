"""Backfill across three releases from the stand-in GitHub: a KEP that slips twice shows on its KEP page and in
the release figures; the beat task syncs the current release, or skips without a token."""

import datetime
import logging

from django.conf import settings
from django.core.management import call_command

from github_sync.tasks import sync_github_current_release
from releases.choices import MilestoneKind, ReleaseState
from releases.models import Milestone, Release, ReleaseStats, TrackedEnhancement
from releases.services.stats import release_stats_compute
from tests.factories import RetrospectiveFactory, SigFactory
from tests.github.standin import demilestoned, labeled, milestoned, unlabeled

D = datetime.timedelta
UTC = datetime.UTC
#: (version, cycle start, enhancements freeze, code freeze, release day), all in the past.
CYCLES = [
    ("1.33", datetime.datetime(2025, 1, 13, tzinfo=UTC)),
    ("1.34", datetime.datetime(2025, 5, 12, tzinfo=UTC)),
    ("1.35", datetime.datetime(2025, 9, 15, tzinfo=UTC)),
]


def instants(start):
    return {"start": start, "ef": start + D(days=30), "cf": start + D(days=60), "r": start + D(days=100)}


def make_releases():
    for version, start in CYCLES:
        at = instants(start)
        release = Release.objects.create(version=version, cycle_start=start.date(), state=ReleaseState.RELEASED)
        for kind, key in (
            (MilestoneKind.CYCLE_START, "start"),
            (MilestoneKind.ENHANCEMENTS_FREEZE, "ef"),
            (MilestoneKind.CODE_FREEZE, "cf"),
            (MilestoneKind.RELEASE, "r"),
        ):
            Milestone.objects.create(release=release, kind=kind, at=at[key])


def scenario(github):
    a, b, c = (instants(start) for _, start in CYCLES)
    for number, (version, _) in enumerate(CYCLES, start=1):
        github.add_milestone(f"v{version}", number=number, due_on=instants(CYCLES[number - 1][1])["r"])
    # KEP-4000 slips twice: at risk and removed before 1.33's enhancements freeze; tracked late in 1.34 (after
    # its enhancements freeze) and removed after its code freeze; shipped in 1.35.
    github.add_issue(
        4000,
        title="KEP-4000: Sidecar resize",
        assignees=["alice"],
        events=[
            labeled("sig/node", a["start"] - D(days=10)),
            milestoned("v1.33", a["start"] + D(days=2), "lead"),
            labeled("lead-opted-in", a["start"] + D(days=2), "lead"),
            labeled("tracked/no", a["ef"] - D(days=1), "enh"),
            demilestoned("v1.33", a["ef"] - D(days=1), "enh"),
            unlabeled("tracked/no", b["start"] + D(days=2), "lead"),
            milestoned("v1.34", b["start"] + D(days=2), "lead"),
            labeled("tracked/yes", b["ef"] + D(days=2), "enh"),
            unlabeled("tracked/yes", b["cf"] + D(hours=1), "enh"),
            labeled("tracked/no", b["cf"] + D(hours=1), "enh"),
            demilestoned("v1.34", b["cf"] + D(hours=1), "enh"),
            unlabeled("tracked/no", c["start"] + D(days=2), "lead"),
            milestoned("v1.35", c["start"] + D(days=2), "lead"),
            labeled("tracked/yes", c["ef"] - D(days=2), "enh"),
        ],
    )
    # One KEP shipped in each release, and one removed after 1.35's code freeze.
    for number, (version, start) in zip((4001, 4002, 4003), CYCLES, strict=True):
        at = instants(start)
        github.add_issue(
            number,
            title=f"KEP-{number}: shipped in {version}",
            events=[
                labeled("sig/node", at["start"]),
                milestoned(f"v{version}", at["start"] + D(days=3)),
                labeled("lead-opted-in", at["start"] + D(days=3)),
                labeled("tracked/yes", at["ef"] - D(days=3)),
            ],
        )
    github.add_issue(
        4004,
        title="KEP-4004: removed at code freeze",
        events=[
            labeled("sig/node", c["start"]),
            milestoned("v1.35", c["start"] + D(days=3)),
            labeled("lead-opted-in", c["start"] + D(days=3)),
            labeled("tracked/yes", c["ef"] - D(days=3)),
            labeled("tracked/no", c["cf"] + D(hours=2)),
            demilestoned("v1.35", c["cf"] + D(hours=2)),
        ],
    )


def test_backfill_three_releases_shows_a_kep_slipping_twice(db, github, client):
    make_releases()
    scenario(github)
    node = SigFactory(slug="sig-node")
    RetrospectiveFactory(release=Release.objects.get(version="1.35"), sig=node, recorded_tracked=24, recorded_merged=13)

    call_command("sync_github", "--backfill", "1.33..1.35", verbosity=0)
    release_stats_compute(release_ids=None)

    statuses = dict(TrackedEnhancement.objects.filter(kep__number=4000).values_list("release__version", "status"))
    assert statuses == {"1.33": "removed_from_milestone", "1.34": "removed_from_milestone", "1.35": "done"}

    page = client.get("/keps/4000/").content.decode()
    assert "Slipped <strong>2</strong> times" in page
    timeline = page.split('id="slip-count"')[1]
    assert "Enhancements freeze" in timeline  # 1.33: at risk, out before the freeze
    assert "Code freeze" in timeline  # 1.34: tracked late, out after code freeze

    figures = {
        row.release.version: (row.tracked, row.done)
        for row in ReleaseStats.objects.filter(sig__isnull=True).select_related("release")
    }
    # Tracked = at each enhancements freeze (plus done): 1.33's slip was out before it, 1.34's came in after it.
    # In 1.35 the retro's tally (24 tracked, 13 merged) names more KEPs than the synced history (3 / 2): the tally
    # is the denominator, and the synced figures stay beside it, labelled.
    assert figures == {"1.33": (1, 1), "1.34": (1, 1), "1.35": (24, 13)}
    stats_135 = ReleaseStats.objects.get(release__version="1.35", sig__isnull=True)
    assert stats_135.tracked_source == "recorded_tally"
    assert stats_135.counts["history"] == {"tracked": 3, "done": 2, "not_recorded": 0}
    assert stats_135.slips[0]["kep"] == 4004
    assert ReleaseStats.objects.get(release__version="1.35", sig=node).recorded_tracked == 24

    listing = client.get("/releases/").content.decode()
    assert "54 %" in listing and "100 %" in listing and "67 %" not in listing
    assert "tally" in listing
    detail = client.get("/releases/1.35/").content.decode()
    assert "from the retro&#x27;s recorded tally" in detail or "from the retro's recorded tally" in detail
    assert "3 tracked at enhancements freeze, 2 done" in detail


def test_beat_task_syncs_the_current_release(db, github):
    make_releases()
    scenario(github)
    result = sync_github_current_release()
    assert result.startswith("v1.35 from kubernetes/enhancements")
    assert set(TrackedEnhancement.objects.filter(release__version="1.35").values_list("kep__number", flat=True)) == {
        4000,
        4003,
        4004,
    }
    assert not TrackedEnhancement.objects.exclude(release__version="1.35").exists()


def test_beat_task_logs_and_skips_without_a_token(db, settings, caplog):
    settings.GITHUB_TOKEN = ""
    make_releases()
    with caplog.at_level(logging.INFO, logger="github_sync.tasks"):
        assert sync_github_current_release() == "skipped: no GITHUB_TOKEN"
    assert "GITHUB_TOKEN is not set" in caplog.text
    assert not TrackedEnhancement.objects.exists()


def test_beat_schedule_names_the_sync_task():
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "github_sync.tasks.sync_github_current_release" in tasks
