"""Release stats for every release at ten times SIG Node's history (budget 1 s), in a scratch database.

Data: `generate_synthetic --scale 10 --seed 1` (about 4,000 tracked enhancements with their status
histories over 16 releases). Figures:

* `release_stats_compute` for all releases (median of 5), with the number of SQL queries it sent;
* floor: one grouped COUNT of the same rows by release, SIG and status — the least the database must do
  to produce any per-release, per-SIG figure, without the funnel's history look-ups.
"""

from django.core.management import call_command
from django.db import connection
from django.db.models import Count
from django.test.utils import CaptureQueriesContext

from bench.core import Figure, median_time, scratch_database

REPEAT = 5


def run() -> list[Figure]:
    with scratch_database():
        from releases.models import EnhancementStatusChange, Release, ReleaseStats, TrackedEnhancement
        from releases.services.stats import release_stats_compute

        call_command("generate_synthetic", "--scale", "10", "--seed", "1", verbosity=0)
        rows = TrackedEnhancement.objects.count()
        changes = EnhancementStatusChange.objects.count()
        releases = Release.objects.count()

        def floor():
            list(TrackedEnhancement.objects.values("release_id", "sig_id", "status").annotate(n=Count("pk")).order_by())

        def compute():
            release_stats_compute(release_ids=None)

        with CaptureQueriesContext(connection) as queries:
            compute()
        stats_rows = ReleaseStats.objects.count()
        compute_s = median_time(compute, repeat=REPEAT, warmup=1)
        floor_s = median_time(floor, repeat=REPEAT, warmup=1)
        print(
            f"{releases} releases, {rows} tracked enhancements, {changes} status changes -> {stats_rows} stats rows; "
            f"{len(queries)} SQL queries per full recompute"
        )
    return [
        Figure(
            name="stats: all releases at 10x scale",
            value=compute_s,
            unit="s",
            floor=floor_s,
            budget=1.0,
            note=f"{len(queries)} queries, {rows} rows, {changes} changes",
        ),
    ]
