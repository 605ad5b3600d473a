"""Selectors of the release pages: stats annotations, schedule flags, slips, retros, meetings, next freeze."""

import datetime

import pytest

from meetings import selectors as meeting_selectors
from releases import selectors
from releases.choices import EnhancementStatus, MilestoneKind, StatsSource
from releases.models import ReleaseStats
from retros import selectors as retro_selectors
from retros.choices import ActionStatus, RetroCategory
from tests.factories import (
    KepFactory,
    MeetingFactory,
    MilestoneFactory,
    ReleaseFactory,
    RetroItemFactory,
    RetrospectiveFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db
UTC = datetime.UTC


def at(*args):
    return datetime.datetime(*args, tzinfo=UTC)


def test_release_list_annotates_stats_and_freezes_in_numeric_order():
    r10 = ReleaseFactory(version="1.10")
    r9 = ReleaseFactory(version="1.9")
    ReleaseStats.objects.create(release=r10, tracked=20, done=5, merge_rate=0.25)
    ReleaseStats.objects.create(release=r10, sig=SigFactory(slug="sig-node"), tracked=4, done=4, merge_rate=1)
    MilestoneFactory(release=r10, kind=MilestoneKind.CODE_FREEZE, at=at(2018, 3, 1))
    MilestoneFactory(release=r10, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(2018, 1, 20))
    MilestoneFactory(
        release=r10, kind=MilestoneKind.CODE_FREEZE, sig=SigFactory(slug="sig-node"), at=at(2018, 2, 1)
    )  # a SIG's own freeze is not the release's
    rows = list(selectors.release_list())
    assert [r.version for r in rows] == ["1.9", "1.10"]
    assert rows[0].tracked is None and rows[0].merge_rate is None and r9.pk == rows[0].pk
    assert (rows[1].tracked, rows[1].done, rows[1].merge_rate) == (20, 5, 0.25)  # the all-SIG row
    assert rows[1].code_freeze_at == at(2018, 3, 1)
    assert rows[1].enhancements_freeze_at == at(2018, 1, 20)


def test_chart_data_from_annotated_rows():
    for version, tracked, done, source in (("1.22", 24, 13, "recorded_tally"), ("1.24", 23, 6, "tracked_rows")):
        ReleaseStats.objects.create(
            release=ReleaseFactory(version=version),
            tracked=tracked,
            done=done,
            merge_rate=done / tracked,
            source=source,
        )
    data = selectors.release_chart_data(releases=selectors.release_list())
    assert data.labels == ["1.22", "1.24"]
    assert [round(v * 100) for v in data.merge_rate] == [54, 26]
    assert data.tracked == [24, 23] and data.done == [13, 6]


def test_schedule_marks_past_and_next():
    release = ReleaseFactory()
    MilestoneFactory(release=release, kind=MilestoneKind.PRR_FREEZE, at=at(2022, 1, 27, 2))
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(2022, 2, 4, 2))
    MilestoneFactory(release=release, kind=MilestoneKind.RELEASE, at=at(2022, 2, 4), all_day=True)
    MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=at(2022, 3, 30, 1))
    entries = selectors.release_schedule(release=release, now=at(2022, 2, 4, 12))
    assert [(e.milestone.kind, e.is_past, e.is_next) for e in entries] == [
        ("prr_freeze", True, False),
        ("release", False, True),  # all-day: not past until its day is over
        ("enhancements_freeze", True, False),
        ("code_freeze", False, False),
    ]
    assert entries[2].pacific.strftime("%Y-%m-%d %H:%M %Z") == "2022-02-03 18:00 PST"


def test_next_freeze_skips_past_and_non_freeze_milestones():
    release = ReleaseFactory()
    MilestoneFactory(release=release, kind=MilestoneKind.PRR_FREEZE, at=at(2022, 1, 27, 2))
    MilestoneFactory(release=release, kind=MilestoneKind.RETROSPECTIVE, at=at(2022, 2, 1))
    code = MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=at(2022, 3, 30, 1))
    assert selectors.next_freeze(release=release, now=at(2022, 1, 30)) == code
    assert selectors.next_freeze(release=release, now=at(2022, 4, 1)) is None


def test_at_risk_for_milestone_uses_the_freeze_it_closes():
    release = ReleaseFactory()
    code = MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE)
    test = MilestoneFactory(release=release, kind=MilestoneKind.TEST_FREEZE)
    TrackedEnhancementFactory(release=release, status=EnhancementStatus.AT_RISK_CODE)
    TrackedEnhancementFactory(release=release, status=EnhancementStatus.AT_RISK_DOCS)
    TrackedEnhancementFactory(release=release, status=EnhancementStatus.TRACKED_CODE)
    rows, total, _ = selectors.at_risk_for_milestone(release=release, milestone=code)
    assert total == 1 and rows[0].status == "at_risk_code"
    # Test freeze checks the code freeze of the board (releases.rules), as its reminders do.
    rows, total, _ = selectors.at_risk_for_milestone(release=release, milestone=test)
    assert total == 1 and rows[0].status == "at_risk_code"
    rows, total, _ = selectors.at_risk_for_milestone(release=release, milestone=None, limit=1)
    assert len(rows) == 1 and total == 2


def test_slips_count_same_and_earlier_releases_only():
    kep = KepFactory()
    r22, r23, r24, r25 = (ReleaseFactory(version=v) for v in ("1.22", "1.23", "1.24", "1.25"))
    TrackedEnhancementFactory(release=r22, kep=kep, status=EnhancementStatus.REMOVED)
    TrackedEnhancementFactory(release=r23, kep=kep, status=EnhancementStatus.DEFERRED)
    TrackedEnhancementFactory(release=r24, kep=kep, status=EnhancementStatus.TRACKED_CODE)
    TrackedEnhancementFactory(release=r25, kep=kep, status=EnhancementStatus.REMOVED)
    TrackedEnhancementFactory(release=r24, status=EnhancementStatus.DONE)  # another KEP: never slipped
    by_kep = {te.kep_id: te.slips for te in selectors.tracked_enhancement_list(release=r24)}
    assert by_kep[kep.pk] == 2
    assert sorted(by_kep.values()) == [0, 2]
    (row,) = selectors.tracked_enhancement_list(release=r25)
    assert row.slips == 3


def test_retrospective_list_splits_items():
    release = ReleaseFactory()
    retro = RetrospectiveFactory(release=release)
    RetroItemFactory(retrospective=retro, category=RetroCategory.WENT_WELL, text="a")
    RetroItemFactory(retrospective=retro, category=RetroCategory.TO_IMPROVE, text="b")
    RetroItemFactory(retrospective=retro, category=RetroCategory.ACTION_ITEM, text="c", status=ActionStatus.OPEN)
    (got,) = retro_selectors.retrospective_list(release=release)
    assert [i.text for i in got.went_well] == ["a"]
    assert [i.text for i in got.to_improve] == ["b"]
    assert [i.text for i in got.actions] == ["c"]


def test_open_action_items_across_releases_newest_first():
    old, new = ReleaseFactory(version="1.23"), ReleaseFactory(version="1.24")
    cases = (
        (old, "sig-node", ActionStatus.OPEN),
        (new, "sig-node", ActionStatus.IN_PROGRESS),
        (new, "sig-apps", "done"),
    )
    for release, sig, status in cases:
        RetroItemFactory(
            retrospective=RetrospectiveFactory(release=release, sig=SigFactory(slug=sig)),
            category=RetroCategory.ACTION_ITEM,
            status=status,
            text=f"{release.version} {status}",
        )
    items = retro_selectors.retro_action_items(open_only=True)
    assert [i.text for i in items] == ["1.24 in_progress", "1.23 open"]


def test_previous_release_in_numeric_order():
    r9, r10 = ReleaseFactory(version="1.9"), ReleaseFactory(version="1.10")
    assert selectors.release_previous(release=r10) == r9
    assert selectors.release_previous(release=r9) is None


def test_meetings_between_and_latest():
    sig = SigFactory(slug="sig-node")
    for day in (1, 8, 15, 22):
        MeetingFactory(sig=sig, date=datetime.date(2022, 3, day))
    MeetingFactory(sig=sig, date=datetime.date(2022, 3, 29), cancelled=True)
    rows, total = meeting_selectors.meetings_between(
        start=datetime.date(2022, 3, 5), end=datetime.date(2022, 3, 31), limit=2
    )
    assert total == 4 and [m.date.day for m in rows] == [29, 22]
    assert meeting_selectors.meetings_between(start=None, end=datetime.date(2022, 3, 31)) == ([], 0)
    latest = meeting_selectors.meeting_latest(on_or_before=datetime.date(2022, 3, 30))
    assert latest.date == datetime.date(2022, 3, 22)  # the cancelled one was not held


def test_release_stats_get_all_sigs_row():
    release = ReleaseFactory()
    assert selectors.release_stats_get(release=release) is None
    ReleaseStats.objects.create(release=release, sig=SigFactory(slug="sig-node"), tracked=1, done=1)
    assert selectors.release_stats_get(release=release) is None
    row = ReleaseStats.objects.create(release=release, tracked=2, done=1, source=StatsSource.TRACKED_ROWS)
    assert selectors.release_stats_get(release=release) == row


def test_cycle_dates_fall_back_to_milestones():
    release = ReleaseFactory(cycle_start=None, planned_release_date=None)
    MilestoneFactory(release=release, kind=MilestoneKind.CYCLE_START, at=at(2022, 1, 10))
    MilestoneFactory(release=release, kind=MilestoneKind.RELEASE, at=at(2022, 5, 3), all_day=True)
    schedule = selectors.release_schedule(release=release)
    assert selectors.release_cycle_dates(release=release, schedule=schedule) == (
        datetime.date(2022, 1, 10),
        datetime.date(2022, 5, 3),
    )
