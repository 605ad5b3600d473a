"""The world the release page tests read: v1.24 Stargazer, with a schedule, a board, figures, a retro and meetings
(the `release` fixture), and a board of any size laid out directly (`fill_board`) for the query counts."""

import datetime

import pytest

from keps.models import Kep
from releases.choices import EnhancementStatus, MilestoneKind, ReleaseState
from releases.models import ReleaseStats, TrackedEnhancement, status_writer
from retros.choices import ActionStatus, RetroCategory
from tests.factories import (
    KepFactory,
    MeetingFactory,
    MilestoneFactory,
    PersonFactory,
    ReleaseFactory,
    RetroItemFactory,
    RetrospectiveFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

UTC = datetime.UTC


def at(*args):
    return datetime.datetime(*args, tzinfo=UTC)


@pytest.fixture
def release(db):
    """v1.24 with a schedule, 3 tracked enhancements, stats, a retro and a meeting during the cycle."""
    release = ReleaseFactory(
        version="1.24",
        name="Stargazer",
        state=ReleaseState.RELEASED,
        cycle_start=datetime.date(2022, 1, 10),
        actual_release_date=datetime.date(2022, 5, 3),
        planned_release_date=datetime.date(2022, 5, 3),
    )
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(2022, 2, 4, 2))
    MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=at(2022, 3, 30, 1))
    MilestoneFactory(release=release, kind=MilestoneKind.RELEASE, at=at(2022, 5, 3), all_day=True)
    node = SigFactory(slug="sig-node")
    contact = PersonFactory(github="ehashman")
    TrackedEnhancementFactory(
        release=release,
        kep=KepFactory(number=2727, title="gRPC probes"),
        status=EnhancementStatus.DONE,
        enhancements_contact=contact,
    )
    TrackedEnhancementFactory(
        release=release, kep=KepFactory(number=1287, title="In-place Pod resize"), status=EnhancementStatus.REMOVED
    )
    TrackedEnhancementFactory(
        release=release,
        kep=KepFactory(number=127, title="User namespaces", owning_sig=SigFactory(slug="sig-auth")),
        status=EnhancementStatus.REMOVED,
        type="major_change",
        target_stage="beta",
    )
    ReleaseStats.objects.create(
        release=release,
        tracked=3,
        done=1,
        removed=2,
        merge_rate=1 / 3,
        funnel=[
            {"step": "opted_in", "label": "Opted in", "count": 3, "at": None},
            {
                "step": "enhancements_freeze",
                "label": "At enhancements freeze",
                "count": 3,
                "at": "2022-02-04T02:00:00Z",
            },
            {"step": "shipped", "label": "Shipped", "count": 1, "at": None},
        ],
    )
    retro = RetrospectiveFactory(release=release, sig=node, date=datetime.date(2022, 4, 26))
    RetroItemFactory(retrospective=retro, category=RetroCategory.WENT_WELL, text="Planning and tracking")
    RetroItemFactory(retrospective=retro, category=RetroCategory.TO_IMPROVE, text="Not enough reviewers")
    RetroItemFactory(
        retrospective=retro,
        category=RetroCategory.ACTION_ITEM,
        text="No changes without tests",
        owner=PersonFactory(github="derekwaynecarr"),
        status=ActionStatus.IN_PROGRESS,
    )
    MeetingFactory(sig=node, date=datetime.date(2022, 4, 26), title="SIG Node weekly: 1.24 retro")
    MeetingFactory(sig=node, date=datetime.date(2022, 6, 7), title="After the cycle")
    return release


def fill_board(release, n):
    """`n` KEPs of sig-node on `release`'s board, two in three at risk for code freeze and the rest done."""
    sig = SigFactory(slug="sig-node")
    keps = Kep.objects.bulk_create(
        [Kep(number=100000 + i, title=f"Bulk KEP {i}", owning_sig=sig) for i in range(n)], batch_size=500
    )
    with status_writer():  # a board laid out directly for a query count; no history needed
        TrackedEnhancement.objects.bulk_create(
            [
                TrackedEnhancement(
                    release=release, kep=kep, sig=sig, status=EnhancementStatus.AT_RISK_CODE if i % 3 else "done"
                )
                for i, kep in enumerate(keps)
            ],
            batch_size=500,
        )
