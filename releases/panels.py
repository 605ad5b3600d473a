"""What the release data adds to lower apps' pages (core/panels.py; registered in SIGTRACKER_PAGE_PANELS)."""

from django.utils import timezone

from . import selectors as release_selectors
from . import selectors_kep_timeline
from . import selectors_plans as release_plans
from . import selectors_published as release_published


def kep_detail(*, kep, plan_history, **_) -> dict:
    """A KEP's page: its timeline across releases (with the plan changes between), the board's other columns and
    the enhancements team's checklist comment for the latest release, and its exception requests."""
    timeline = selectors_kep_timeline.kep_timeline(kep=kep)
    release_plans.timeline_with_plans(timeline=timeline, history=plan_history)
    # The board's other columns and the enhancements team's checklist comment, for the latest release.
    requests = release_published.kep_exception_requests(kep=kep)
    board = release_selectors.kep_latest_board_row(kep=kep)
    return {
        "timeline": timeline,
        "exception_requests": requests,
        "board_exceptions": [r for r in requests if board and r.tracked_enhancement_id == board.pk],
        "board": board,
        "checklist": release_selectors.tracked_enhancement_checklist_due(tracked_enhancement=board, now=timezone.now())
        if board
        else "",
    }
