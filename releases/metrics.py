"""The release domain's Prometheus metrics (`sigtracker_*`), one call per event from the code that does the work:
each stats computation's duration. (The GitHub sync's metrics are `github_sync.metrics`; the reminders' are
`reminders.metrics`.)"""

import functools
import time

from prometheus_client import Histogram

STATS_SECONDS = Histogram(
    "sigtracker_stats_compute_duration_seconds",
    "Duration of one stats computation (one release after edits, or all of them nightly)",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300),
)


def stats_timed(func):
    """Decorator: times each call of a stats computation."""

    @functools.wraps(func)
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            STATS_SECONDS.observe(time.perf_counter() - started)

    return timed
