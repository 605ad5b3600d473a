"""Writes for the releases domain, one module per workflow.

- `tracking`: status changes of tracked enhancements, with history.
- `schedule`: releases and milestones from sig-release schedules.
- `stats`: merge-rate and funnel statistics.
- `reminders`: freeze reminder emails, delivered exactly once.
- `retro`: retrospectives and their items.
"""

from .tracking import tracked_enhancement_bulk_set_status, tracked_enhancement_set_status

__all__ = ["tracked_enhancement_bulk_set_status", "tracked_enhancement_set_status"]
