"""The GitHub sync's Prometheus metrics (`sigtracker_*`), one call per event from the code that does the work.

Counted where it happens (in the worker that syncs; core/metrics.py says how a pod's processes add up): GitHub
requests by status and the rate limit left; each sync's duration and outcome. (The stats computation's metrics are
`releases.metrics`; the reminders' are `reminders.metrics`.)

Read from the database at scrape time (`database_families`, listed in SIGTRACKER_METRICS_COLLECTORS, so exposed by
the web pods): each release's last successful sync by beat's task, recorded as a heartbeat row so that it outlives
worker restarts.
"""

from collections.abc import Iterable

from django.utils import timezone
from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily

GITHUB_REQUESTS = Counter("sigtracker_github_requests_total", "Requests to the GitHub API by HTTP status", ["status"])
GITHUB_RATE_LIMIT = Gauge(
    "sigtracker_github_rate_limit_remaining",
    "Requests left in GitHub's rate-limit window, as its last answer said",
    multiprocess_mode="mostrecent",
)
SYNC_SECONDS = Histogram(
    "sigtracker_github_sync_duration_seconds",
    "Duration of a release's GitHub sync",
    ["release"],
    buckets=(1, 5, 15, 30, 60, 120, 300, 600, 1800),
)
SYNCS = Counter(
    "sigtracker_github_syncs_total",
    "GitHub syncs by release and outcome (ok, stopped, failed)",
    [
        "release",
        "outcome",
    ],
)

#: Heartbeat rows of successful syncs are named this plus the release version.
SYNC_HEARTBEAT_PREFIX = "github-sync:"


# The models are imported where used: the GitHub client reports here and stays importable before Django's apps are.


# --- events ----------------------------------------------------------------------------------------------------


def github_answer(status: int | None, remaining: int | None = None) -> None:
    """One answer from GitHub (None: no answer, a timeout or a refused connection), and the rate limit it says is
    left (`x-ratelimit-remaining`, read by `github_sync.github.client`)."""
    GITHUB_REQUESTS.labels(str(status) if status is not None else "error").inc()
    if remaining is not None:
        GITHUB_RATE_LIMIT.set(remaining)


def github_sync_done(*, version: str, seconds: float, outcome: str) -> None:
    """A sync of release `version` ended: "ok", "stopped" (a rate limit far ahead) or "failed" (it raised)."""
    SYNC_SECONDS.labels(version).observe(seconds)
    SYNCS.labels(version, outcome).inc()


def github_sync_succeeded(*, version: str) -> None:
    """Beat's sync of release `version` succeeded: recorded as a heartbeat row, read at scrape time. Called by the
    task, not the sync service, which must write nothing when GitHub says nothing changed."""
    from core.models import Heartbeat

    Heartbeat.objects.update_or_create(name=f"{SYNC_HEARTBEAT_PREFIX}{version}", defaults={"at": timezone.now()})


# --- read at scrape time ---------------------------------------------------------------------------------------


def database_families() -> Iterable:
    from core.models import Heartbeat

    last = GaugeMetricFamily(
        "sigtracker_github_sync_last_success_timestamp_seconds",
        "Unix time of each release's last successful GitHub sync",
        labels=["release"],
    )
    for name, at in Heartbeat.objects.filter(name__startswith=SYNC_HEARTBEAT_PREFIX).values_list("name", "at"):
        last.add_metric([name.removeprefix(SYNC_HEARTBEAT_PREFIX)], at.timestamp())
    yield last
