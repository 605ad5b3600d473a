"""The release domain's metrics, scraped from /metrics after the work they count: a stats computation (the sync's:
tests/github/test_metrics.py; the reminders': tests/reminders/test_metrics.py)."""

import pytest

from releases.choices import MilestoneKind
from releases.services.stats import release_stats_compute
from tests.scrape import Delta

EF = MilestoneKind.ENHANCEMENTS_FREEZE.value


@pytest.mark.django_db
def test_stats_computation_is_timed(client, board):
    delta = Delta(client)
    release_stats_compute(release_ids=None)
    assert delta("sigtracker_stats_compute_duration_seconds_count") == 1
    assert delta("sigtracker_stats_compute_duration_seconds_sum") > 0
