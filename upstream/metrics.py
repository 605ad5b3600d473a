"""The upstream refresh's metrics: each run's duration (counted where it happens, in the worker that ran it) and
each source's last success (read from the database at scrape time, listed in SIGTRACKER_METRICS_COLLECTORS)."""

from collections.abc import Iterable

from prometheus_client import Histogram
from prometheus_client.core import GaugeMetricFamily

RUN_SECONDS = Histogram(
    "sigtracker_upstream_run_duration_seconds",
    "Time one refresh of one upstream source took (fetch and imports), by source and outcome",
    ["source", "outcome"],
    buckets=(0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200),
)


def run_observe(*, source: str, seconds: float, outcome: str) -> None:
    RUN_SECONDS.labels(source, outcome).observe(seconds)


def database_families() -> Iterable:
    from .models import UpstreamSource

    last = GaugeMetricFamily(
        "sigtracker_upstream_last_success_timestamp_seconds",
        "Unix time each upstream source was last refreshed with its data current (absent: never)",
        labels=["source"],
    )
    for name, at in UpstreamSource.objects.exclude(last_success_at=None).values_list("name", "last_success_at"):
        last.add_metric([name], at.timestamp())
    yield last
