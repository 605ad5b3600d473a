"""Writes for the releases domain, one module per workflow.

- `tracking`: status changes of tracked enhancements, with history.
- `schedule`: releases and milestones from sig-release schedules.
- `stats`: merge-rate and funnel statistics.
- `reminders`: freeze reminder emails and SIGs' Slack digests, delivered once per recipient and channel (at most
  one duplicate, recognisable by its Message-ID or `reminder-<id>` reference, only after a crash between the
  server's acceptance and the commit that records it).
- `retro`: retrospectives and their items.
"""

from .reminders import (
    freeze_reminders_send,
    reminder_deliver_batch,
    reminder_deliveries_claim,
    reminder_deliveries_plan,
)
from .retro import release_ensure_versions, retro_notes_import
from .schedule import release_schedule_import, release_state_at
from .stats import release_stats_compute, release_stats_request
from .tracking import (
    tracked_enhancement_bulk_set_status,
    tracked_enhancement_create,
    tracked_enhancement_set_status,
)

__all__ = [
    "freeze_reminders_send",
    "release_ensure_versions",
    "release_schedule_import",
    "release_state_at",
    "release_stats_compute",
    "release_stats_request",
    "reminder_deliver_batch",
    "reminder_deliveries_claim",
    "reminder_deliveries_plan",
    "retro_notes_import",
    "tracked_enhancement_bulk_set_status",
    "tracked_enhancement_create",
    "tracked_enhancement_set_status",
]
