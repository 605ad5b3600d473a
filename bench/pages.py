"""Measuring public pages against an honest floor: the same Django stack serving a static page of the same size.

A page's server time is the median wall time of `django.test.Client().get(url)` with DEBUG off: URL resolution,
every middleware, the view, its queries and the template. The floor is that same request path (same client, same
middleware, same URL resolver) to a trivial view that returns a precomputed `HttpResponse` of exactly the page's byte
size, so the ratio isolates what the page itself costs (queries + rendering). Database connections persist between
requests during the measurement, as in production.

Usage from a `bench/bench_<topic>.py`, inside `scratch_database()` once its data is loaded::

    from bench.pages import page_figures

    figures = page_figures({"/releases/1.24/": "release detail"}, budget=0.1, max_ratio=3)

This module is also the URLconf used while measuring: the project's URLs plus one static route.
"""

import statistics
import time

from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.test.utils import override_settings
from django.urls import include, path

from bench.core import Figure, median_time

STATIC_PREFIX = "__bench_static__/"
#: settings/prod.py's default.
PRODUCTION_CONN_MAX_AGE = 60
# Precomputed bodies by size: the floor view does no work beyond returning one.
_BODIES: dict[int, bytes] = {}


def static_page(request, size: int) -> HttpResponse:
    """The floor: a ready-made HTML body of `size` bytes, no database, no template."""
    return HttpResponse(_BODIES[size], content_type="text/html; charset=utf-8")


urlpatterns = [
    path(f"{STATIC_PREFIX}<int:size>/", static_page),
    path("", include("sigtracker.urls")),
]


def _body_of_size(size: int) -> bytes:
    if size not in _BODIES:
        chunk = b"<p>sigtracker static floor page</p>\n"
        _BODIES[size] = (chunk * (size // len(chunk) + 1))[:size]
    return _BODIES[size]


def bench_client() -> Client:
    """A test client whose Host is an allowed host (no test-environment set-up, so no template instrumentation)."""
    return Client(HTTP_HOST="127.0.0.1")


def measure_page(url: str, *, client: Client | None = None, repeat: int = 15, warmup: int = 2) -> dict:
    """Median server time of GET `url` and, measured in the same breath, of a static page of the same byte size.

    Returns ``{"seconds", "render_seconds", "floor_seconds", "bytes", "queries"}``: `seconds` with the page cache
    on (as deployed), `render_seconds` with it off (every request renders). RuntimeError unless the page is a 200.
    """
    client = client or bench_client()
    # Persistent connections, as production runs (settings/prod.py: CONN_MAX_AGE 60): otherwise every measured
    # request would also pay a new PostgreSQL connection, which the static floor never does.
    conn_max_age = connection.settings_dict["CONN_MAX_AGE"]
    connection.settings_dict["CONN_MAX_AGE"] = PRODUCTION_CONN_MAX_AGE
    try:
        return _measure(url, client=client, repeat=repeat, warmup=warmup)
    finally:
        connection.settings_dict["CONN_MAX_AGE"] = conn_max_age
        connection.close()


def _measure(url: str, *, client: Client, repeat: int, warmup: int) -> dict:
    with override_settings(ROOT_URLCONF=__name__, DEBUG=False):
        # First the page rendered on every request (page cache off): what a request pays on a cache miss.
        with override_settings(SIGTRACKER_PAGE_CACHE_SECONDS=0):
            # An execute wrapper, not CaptureQueriesContext: the request may close and reopen the connection
            # (health checks, an expired connection), which clears the connection's query log.
            queries = []
            with connection.execute_wrapper(lambda execute, sql, *args: queries.append(sql) or execute(sql, *args)):
                response = client.get(url)
            if response.status_code != 200:
                raise RuntimeError(f"{url}: HTTP {response.status_code}, expected 200")
            render_seconds = median_time(lambda: client.get(url), repeat=repeat, warmup=warmup)
            # This process's CPU time for one render (Python: view, ORM, template), which a busy machine does not
            # inflate the way it does wall time; the database server's time is in the wall time only.
            render_cpu_seconds = _median_cpu(lambda: client.get(url), repeat=repeat)
        size = len(response.content)
        _body_of_size(size)
        floor_url = f"/{STATIC_PREFIX}{size}/"
        floor_response = client.get(floor_url)
        if floor_response.status_code != 200 or len(floor_response.content) != size:
            raise RuntimeError(f"floor page for {url} is broken (HTTP {floor_response.status_code})")
        # Then as deployed: the page cache on (core/page_cache.py), beside the static floor.
        seconds = median_time(lambda: client.get(url), repeat=repeat, warmup=warmup)
        floor_seconds = median_time(lambda: client.get(floor_url), repeat=repeat, warmup=warmup)
    return {
        "seconds": seconds,
        "render_seconds": render_seconds,
        "render_cpu_seconds": render_cpu_seconds,
        "floor_seconds": floor_seconds,
        "bytes": size,
        "queries": len(queries),
    }


def _median_cpu(func, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.process_time()
        func()
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def page_figures(
    pages: dict[str, str],
    *,
    budget: float = 0.1,
    max_ratio: float = 3.0,
    repeat: int = 15,
    prefix: str = "page",
) -> list[Figure]:
    """One Figure per URL: median server time (s) beside the static floor of the same size.

    `pages` maps URL -> a short label (e.g. ``{"/releases/1.24/": "release detail"}``); the figure is named
    ``"<prefix> <label> <url> (median)"`` and its note gives the page size and SQL query count.
    """
    client = bench_client()
    figures = []
    for url, label in pages.items():
        result = measure_page(url, client=client, repeat=repeat)
        figures.append(
            Figure(
                name=f"{prefix} {label} {url} (median)",
                value=result["seconds"],
                unit="s",
                floor=result["floor_seconds"],
                budget=budget,
                max_ratio=max_ratio,
                note=f"{result['bytes']:,} bytes; page cache on, as deployed; floor: static page, same size",
            )
        )
        figures.append(
            Figure(
                name=f"{prefix} {label} {url} (uncached render, median)",
                value=result["render_seconds"],
                unit="s",
                budget=budget,
                note=(
                    f"{result['queries']} SQL queries; every request rendered (cache miss); "
                    f"{result['render_cpu_seconds'] * 1000:.0f} ms of it Python CPU"
                ),
            )
        )
    return figures
