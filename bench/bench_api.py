"""The read API at ten times real scale: `/api/v1/tracked-enhancements/?release=1.27` uncached (budget: median
50 ms) and answered from its ETag with `If-None-Match` (budget 5 ms).

Data: `generate_synthetic --scale 10 --seed 1` in a scratch PostgreSQL database. Measured like the pages
(bench/pages.py): median wall time of `django.test.Client().get()` through every middleware with DEBUG off and
persistent connections. "uncached" is a first read (status 200, full body); the floor is the same stack answering a
static JSON body of the same size. The 304 figure is the full round trip of a conditional request: throttle, the data
generation (read at most once a second per process, as deployed) and the ETag hash, no query of the list.
"""

from django.core.cache import caches
from django.db import connection
from django.test.utils import override_settings

from bench.core import Figure, median_time, scratch_database
from bench.pages import PRODUCTION_CONN_MAX_AGE, bench_client

URL = "/api/v1/tracked-enhancements/?release=1.27"


def run() -> list[Figure]:
    from django.conf import settings
    from django.core.management import call_command

    with scratch_database():
        call_command("generate_synthetic", "--scale", "10", "--seed", "1", verbosity=0)
        client = bench_client()
        conn_max_age = connection.settings_dict["CONN_MAX_AGE"]
        connection.settings_dict["CONN_MAX_AGE"] = PRODUCTION_CONN_MAX_AGE
        try:
            with override_settings(
                DEBUG=False, SIGTRACKER_API_ANON_RATE="1000000/minute", SIGTRACKER_PAGE_CACHE_RECHECK=1
            ):
                caches[settings.SIGTRACKER_API_THROTTLE_CACHE].clear()
                first = client.get(URL, HTTP_ACCEPT="application/json")
                assert first.status_code == 200, first.status_code
                rows = len(first.json()["results"])
                etag = first["ETag"]
                body_size = len(first.content)

                def uncached():
                    response = client.get(URL, HTTP_ACCEPT="application/json")
                    assert response.status_code == 200

                def conditional():
                    response = client.get(URL, HTTP_ACCEPT="application/json", HTTP_IF_NONE_MATCH=etag)
                    assert response.status_code == 304

                uncached_s = median_time(uncached, repeat=25, warmup=3)
                conditional_s = median_time(conditional, repeat=50, warmup=3)
                floor_s = _static_floor(client, body_size)
        finally:
            connection.settings_dict["CONN_MAX_AGE"] = conn_max_age
            connection.close()
    label = f"({rows} rows of v1.27, {body_size:,} bytes)"
    return [
        Figure(f"api tracked-enhancements uncached {label}", uncached_s * 1000, "ms", floor=floor_s * 1000, budget=50),
        Figure("api tracked-enhancements If-None-Match 304", conditional_s * 1000, "ms", floor=floor_s * 1e3, budget=5),
    ]


def _static_floor(client, size: int) -> float:
    """The same client and middleware answering a ready-made body of the same size (bench/pages.py's floor view)."""
    with override_settings(ROOT_URLCONF="bench.pages"):
        from bench.pages import STATIC_PREFIX, _body_of_size

        _body_of_size(size)
        return median_time(lambda: client.get(f"/{STATIC_PREFIX}{size}/"), repeat=25, warmup=3)
