"""Writes for the releases domain, one module per workflow.

- `tracking`: status changes of tracked enhancements, with history.
- `schedule`: releases and milestones from sig-release schedules.
- `stats`: merge-rate and funnel statistics.
- `versions`: releases created by version alone.
"""

from .schedule import release_schedule_import, release_state_at
from .stats import release_stats_compute, release_stats_request
from .tracking import (
    tracked_enhancement_bulk_set_status,
    tracked_enhancement_create,
    tracked_enhancement_set_status,
)
from .versions import release_ensure_versions

__all__ = [
    "release_ensure_versions",
    "release_schedule_import",
    "release_state_at",
    "release_stats_compute",
    "release_stats_request",
    "tracked_enhancement_bulk_set_status",
    "tracked_enhancement_create",
    "tracked_enhancement_set_status",
]
