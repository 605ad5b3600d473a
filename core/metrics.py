"""Prometheus metrics: the registry every process exposes, who may read it, and the site-level metrics.

Processes: a gunicorn web process and a Celery worker pool both fork, so each pod points PROMETHEUS_MULTIPROC_DIR
at an empty directory of its own (the entrypoint does) and prometheus-client keeps one file per process there; a
scrape adds them up (`MultiProcessCollector`). Without that variable (tests, `make demo`) the process's own default
registry is read. The web pods answer `/metrics` on their HTTP port (core.middleware.OpsEndpointsMiddleware); a
worker's main process serves its pool's metrics on SIGTRACKER_METRICS_PORT (`worker_metrics_serve`).

Who may read: loopback, and the networks SIGTRACKER_METRICS_ALLOWED_NETWORKS lists (the cluster's pod network,
where Prometheus scrapes from); everybody else gets 403. A request that came through a proxy (it carries
X-Forwarded-For, which an Ingress controller adds) is refused too: the controller's own address is inside the pod
network, so without that rule the Ingress would hand /metrics to the internet.

Metrics read from the database at scrape time (beat's heartbeat age here; the apps add theirs through
SIGTRACKER_METRICS_COLLECTORS, dotted paths of callables returning metric families) are exposed by the web pods
only: they are the same whichever process reads them, and they survive restarts, unlike a gauge in memory.
"""

import ipaddress
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from functools import cache
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings
from django.db.backends.signals import connection_created
from django.http import HttpResponse
from django.utils import timezone
from django.utils.module_loading import import_string
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

logger = logging.getLogger(__name__)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# --- site-level metrics ----------------------------------------------------------------------------------------

REQUESTS = Counter(
    "django_http_requests_total", "HTTP requests answered, by view, method and status", ["view", "method", "status"]
)
REQUEST_SECONDS = Histogram(
    "django_http_request_duration_seconds",
    "Time from the request reaching Django to the response leaving it, by view",
    ["view"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
DB_QUERY_SECONDS = Histogram(
    "django_db_query_duration_seconds",
    "Database statements executed, by connection alias and vendor",
    ["alias", "vendor"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5),
)
DB_ERRORS = Counter("django_db_errors_total", "Database statements that raised, by alias and error", ["alias", "error"])
CACHE_REQUESTS = Counter(
    "django_cache_requests_total", "Page cache lookups, by result (hit, miss, skip)", ["cache", "result"]
)


def observe_request(*, view: str, method: str, status: int, seconds: float, page_cache: str | None) -> None:
    REQUESTS.labels(view, method, str(status)).inc()
    REQUEST_SECONDS.labels(view).observe(seconds)
    if page_cache:
        CACHE_REQUESTS.labels(settings.SIGTRACKER_PAGE_CACHE_ALIAS, page_cache).inc()


def _query_timer(alias: str, vendor: str):
    def wrapper(execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        except Exception as exc:
            DB_ERRORS.labels(alias, type(exc).__name__).inc()
            raise
        finally:
            DB_QUERY_SECONDS.labels(alias, vendor).observe(time.perf_counter() - started)

    wrapper.sigtracker_metrics = True
    return wrapper


def _instrument_connection(sender, connection, **kwargs) -> None:
    """Time every statement of every connection, in web and worker processes alike (a connection wrapper is made
    once per thread and reconnects keep its wrappers, hence the check)."""
    if not any(getattr(w, "sigtracker_metrics", False) for w in connection.execute_wrappers):
        connection.execute_wrappers.append(_query_timer(connection.alias, connection.vendor))


def instrument_database() -> None:
    connection_created.connect(_instrument_connection, dispatch_uid="core.metrics.instrument_connection")


# --- metrics read from the database at scrape time ---------------------------------------------------------------


def beat_heartbeat_family() -> Iterable:
    from .health import BEAT
    from .models import Heartbeat

    family = GaugeMetricFamily(
        "sigtracker_beat_heartbeat_age_seconds",
        "Seconds since beat's heartbeat task last ran on a worker (absent before the first one)",
    )
    at = Heartbeat.objects.filter(name=BEAT).values_list("at", flat=True).first()
    if at is not None:
        family.add_metric([], max((timezone.now() - at).total_seconds(), 0.0))
    yield family


class DatabaseCollector:
    """Collects the scrape-time metrics: beat's heartbeat and the apps' SIGTRACKER_METRICS_COLLECTORS. A database
    that cannot answer yields nothing rather than failing the whole scrape (the request metrics still matter)."""

    def collect(self):
        sources: list[Callable[[], Iterable]] = [beat_heartbeat_family]
        sources += [import_string(path) for path in getattr(settings, "SIGTRACKER_METRICS_COLLECTORS", [])]
        for source in sources:
            try:
                yield from list(source())
            except Exception:  # noqa: BLE001 - a scrape must not fail because one source did
                logger.exception("metrics source %s failed", getattr(source, "__name__", source))


def registry(*, with_database: bool) -> CollectorRegistry:
    """The registry a scrape reads: every process of this pod (multiprocess mode) or this process alone."""
    if os.environ.get(MULTIPROC_ENV):
        reg = CollectorRegistry()
        multiprocess.MultiProcessCollector(reg)
    elif with_database:
        reg = CollectorRegistry()
        reg.register(_DefaultRegistryCollector())
    else:
        return REGISTRY
    if with_database:
        reg.register(DatabaseCollector())
    return reg


class _DefaultRegistryCollector:
    def collect(self):
        return REGISTRY.collect()


def exposition(*, with_database: bool) -> bytes:
    return generate_latest(registry(with_database=with_database))


# --- who may read ----------------------------------------------------------------------------------------------


@cache
def _networks(spec: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(item, strict=False) for item in spec)


def scrape_allowed(remote_addr: str, *, forwarded: bool) -> bool:
    """Loopback, or an address in SIGTRACKER_METRICS_ALLOWED_NETWORKS; never a request relayed by a proxy."""
    if forwarded:
        return False
    try:
        address = ipaddress.ip_address((remote_addr or "").split("%")[0])
    except ValueError:
        return False
    if address.is_loopback:
        return True
    networks = _networks(tuple(getattr(settings, "SIGTRACKER_METRICS_ALLOWED_NETWORKS", [])))
    return any(address.version == net.version and address in net for net in networks)


def metrics_response(request) -> HttpResponse:
    forwarded = "HTTP_X_FORWARDED_FOR" in request.META or "HTTP_FORWARDED" in request.META
    if not scrape_allowed(request.META.get("REMOTE_ADDR", ""), forwarded=forwarded):
        return HttpResponse("Metrics are for the cluster's Prometheus only.\n", status=403, content_type="text/plain")
    return HttpResponse(exposition(with_database=True), content_type=CONTENT_TYPE_LATEST)


# --- a worker's metrics port -----------------------------------------------------------------------------------


def _worker_app(environ, start_response):
    if environ.get("PATH_INFO") != "/metrics":
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"Not found: the metrics are at /metrics.\n"]
    forwarded = "HTTP_X_FORWARDED_FOR" in environ or "HTTP_FORWARDED" in environ
    if not scrape_allowed(environ.get("REMOTE_ADDR", ""), forwarded=forwarded):
        start_response("403 Forbidden", [("Content-Type", "text/plain")])
        return [b"Metrics are for the cluster's Prometheus only.\n"]
    start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST)])
    return [exposition(with_database=False)]


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the stdlib's signature
        pass


class _DualStackServer(WSGIServer):
    daemon_threads = True


def worker_metrics_serve(*, port: int, host: str = "0.0.0.0") -> WSGIServer:
    """Serve this pod's worker metrics on `port` from a daemon thread of the calling (main) process."""
    server = make_server(host, port, _worker_app, server_class=_DualStackServer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    logger.info("worker metrics on port %d", server.server_port)
    return server


def process_dead(pid: int) -> None:
    """Forget a finished child's live gauges (multiprocess mode only)."""
    if os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(pid)
