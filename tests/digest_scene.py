"""The reminder-content tests' scene: a freeze on 16 November 2022 at 01:00 UTC, a week's warning, SIG Node's
list, and a helper that puts a KEP on the board with a status and its authors. Shared by the reminder-content and
board tests."""

import datetime

from tests.factories import KepFactory
from tests.factories import TrackedEnhancementFactory as TrackedFactory
from tests.reminder_board import on_board

UTC = datetime.UTC
DAY = datetime.timedelta(days=1)
FREEZE = datetime.datetime(2022, 11, 16, 1, 0, tzinfo=UTC)
WEEK_BEFORE = FREEZE - 7 * DAY
NODE_LIST = "kubernetes-sig-node@googlegroups.com"


def tracked_kep(release, sig, number, status, *authors, title=None):
    kep = KepFactory(number=number, owning_sig=sig, title=title or f"KEP number {number}")
    kep.authors.add(*authors)
    row = TrackedFactory(release=release, kep=kep, sig=sig, created_at=FREEZE - 30 * DAY)
    return on_board(row, (FREEZE - 30 * DAY, status))
