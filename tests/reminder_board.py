"""The reminder tests' board: v1.26 with an enhancements freeze on Monday 7 November 2022 at 18:00 PST (the day
after US clocks fell back), SIG Node tracking three KEPs. Shared by the reminder, outage, worker, task and Slack
tests; the `board` fixture (tests/conftest.py) builds it."""

import datetime
import zoneinfo

from releases.choices import EnhancementStatus as S
from releases.choices import MilestoneKind
from releases.models import EnhancementStatusChange
from tests.factories import (
    KepFactory,
    MilestoneFactory,
    PersonFactory,
    ReleaseFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

UTC = datetime.UTC
PACIFIC = zoneinfo.ZoneInfo("America/Los_Angeles")
# Enhancements freeze on Monday 7 November 2022 at 18:00 PST, the day after US clocks fell back. Held in
# UTC: arithmetic on a datetime carrying a zoneinfo zone is wall-clock arithmetic, the very trap tested here.
FREEZE = datetime.datetime(2022, 11, 7, 18, 0, tzinfo=PACIFIC).astimezone(UTC)
NODE_LIST = "kubernetes-sig-node@googlegroups.com"
HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)


def on_board(row, *history):
    """Give `row` the status history [(instant, status), ...] and set its current status to the last."""
    previous = ""
    for instant, status in history:
        EnhancementStatusChange.objects.create(
            tracked_enhancement=row, from_status=previous, to_status=status, changed_at=instant
        )
        previous = status
    row.status = previous
    row.save()
    return row


def make_board():
    """v1.26 with an enhancements freeze at FREEZE; SIG Node tracks three KEPs:
    2001 at risk (author alice, contact carol), 2002 tracked (authors bob, alice), 2003 removed (bob)."""
    release = ReleaseFactory(version="1.26")
    freeze = MilestoneFactory(
        release=release,
        kind=MilestoneKind.ENHANCEMENTS_FREEZE,
        at=FREEZE,
        quoted_timezone="PT",
        exception_deadline=FREEZE + 2 * DAY,
    )
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    alice = PersonFactory(github="alice", name="Alice Liddell", email="alice@example.com")
    bob = PersonFactory(github="bob", name="Bob", email="bob@example.com")
    carol = PersonFactory(github="carol", name="Carol", email="carol@example.com")
    opened = FREEZE - 30 * DAY
    k1 = KepFactory(number=2001, title="Sidecar containers", owning_sig=node)
    k1.authors.add(alice)
    k2 = KepFactory(number=2002, title="In-place pod resize", owning_sig=node)
    k2.authors.add(bob, alice)
    k3 = KepFactory(number=2003, title="Swap support", owning_sig=node)
    k3.authors.add(bob)
    r1 = on_board(
        TrackedEnhancementFactory(release=release, kep=k1, enhancements_contact=carol, created_at=opened),
        (opened, S.AT_RISK_ENHANCEMENTS),
    )
    r2 = on_board(
        TrackedEnhancementFactory(release=release, kep=k2, created_at=opened), (opened, S.TRACKED_ENHANCEMENTS)
    )
    r3 = on_board(
        TrackedEnhancementFactory(release=release, kep=k3, created_at=opened),
        (opened, S.AT_RISK_ENHANCEMENTS),
        (opened + DAY, S.REMOVED),
    )
    return type(
        "Board",
        (),
        dict(release=release, freeze=freeze, node=node, alice=alice, bob=bob, carol=carol, rows=[r1, r2, r3]),
    )
