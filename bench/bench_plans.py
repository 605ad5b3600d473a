"""SIGs' release plans on real data: the plan page, the SIG's plans across releases and the plan API, uncached.

Data, in a scratch PostgreSQL database: as bench/bench_real_data.py (`generate_synthetic --scale REAL_SCALE`, then
the real upstream files of ../shared/data/upstream imported as the README says), plus the plan history of the git
bundle (`import_keps --history` on a clone of ../shared/data/upstream/enhancements-history/kep-history.bundle)
and a lead's decision on every SIG Node v1.37 candidate, so the load counts decided KEPs. Measured like the pages
(bench/pages.py: median wall time through every middleware, DEBUG off, persistent connections); the API as
bench/bench_api.py does (`Accept: application/json`, a first read: no If-None-Match). Budget 100 ms uncached for
each (issue: the plan page and API ≤ 100 ms uncached on the whole real upstream).
"""

import subprocess
import tempfile
from pathlib import Path

from django.core.cache import caches
from django.core.management import call_command
from django.db import connection
from django.test.utils import override_settings

from bench.bench_real_data import REPEAT, SCALE, UPSTREAM, _analyze, _import
from bench.core import Figure, median_time, scratch_database, wall_time
from bench.pages import PRODUCTION_CONN_MAX_AGE, bench_client, page_figures

PAGES = {
    "/releases/1.37/plan/sig-node/": "SIG Node v1.37 plan",
    "/releases/1.27/plan/sig-scheduling/": "sig-scheduling v1.27 plan (past freeze, plan history)",
    "/releases/1.37/plan/": "v1.37 pick a SIG",
    "/sigs/sig-node/plans/": "SIG Node plans across releases",
    # For reference, measured in the same breath: an existing page on the same data (bench_real_data's budget too),
    # so a slow machine shows as slow on both.
    "/keps/perma-beta/": "reference: perma-beta",
}
API = {
    "/api/v1/plans/1.37/sig-node/": "api plan SIG Node v1.37",
    "/api/v1/plans/1.37/sig-node/decisions/": "api plan decisions SIG Node v1.37",
}


def _history() -> float:
    with tempfile.TemporaryDirectory() as scratch:
        clone = Path(scratch) / "enhancements"
        bundle = UPSTREAM / "enhancements-history" / "kep-history.bundle"
        subprocess.run(["git", "clone", "-q", str(bundle), str(clone)], check=True, capture_output=True)
        return wall_time(lambda: call_command("import_keps", "--history", str(clone), verbosity=0))


def _decide() -> int:
    """A curator commits every SIG Node v1.37 candidate (maybe for every third)."""
    from django.contrib.auth import get_user_model

    from community.models import Sig
    from planning.selectors import plan_for
    from planning.services import plan_decision_record

    curator, _ = get_user_model().objects.get_or_create(username="bench-curator", defaults={"is_superuser": True})
    node = Sig.objects.get(slug="sig-node")
    plan = plan_for(version="1.37", sig=node)
    for i, candidate in enumerate(plan.candidates):
        decision = "maybe" if i % 3 == 2 else "commit"
        plan_decision_record(user=curator, release="1.37", sig=node, kep=candidate.kep, decision=decision)
    return len(plan.candidates)


def run() -> list[Figure]:
    from django.conf import settings

    if not UPSTREAM.is_dir():
        print(f"  plans: skipped ({UPSTREAM} is missing)")
        return []
    with scratch_database():
        call_command("generate_synthetic", "--scale", SCALE, "--seed", "1", verbosity=0)
        seconds = _import()
        seconds["import_keps --history"] = _history()
        decided = _decide()
        _analyze()
        print(
            f"   scale {SCALE} + upstream + plan history; {decided} v1.37 SIG Node candidates decided; "
            + ", ".join(f"{name} {value:.1f} s" for name, value in seconds.items())
        )
        figures = page_figures(PAGES, budget=0.1, max_ratio=None, repeat=REPEAT, prefix="plans:")
        for figure in figures:
            if "uncached" not in figure.name:
                figure.budget = None
        client = bench_client()
        conn_max_age = connection.settings_dict["CONN_MAX_AGE"]
        connection.settings_dict["CONN_MAX_AGE"] = PRODUCTION_CONN_MAX_AGE
        try:
            with override_settings(DEBUG=False, SIGTRACKER_API_ANON_RATE="1000000/minute"):
                caches[settings.SIGTRACKER_API_THROTTLE_CACHE].clear()
                for url, label in API.items():
                    first = client.get(url, HTTP_ACCEPT="application/json")
                    assert first.status_code == 200, (url, first.status_code)
                    size = len(first.content)

                    def read(url=url):
                        response = client.get(url, HTTP_ACCEPT="application/json")
                        assert response.status_code == 200

                    value = median_time(read, repeat=REPEAT * 2, warmup=2)
                    figures.append(
                        Figure(
                            f"plans: {label} {url} uncached (median)",
                            value * 1000,
                            "ms",
                            budget=100,
                            note=f"{size:,} bytes",
                        )
                    )
        finally:
            connection.settings_dict["CONN_MAX_AGE"] = conn_max_age
            connection.close()
    return figures
