"""Server time of the release pages at ten times real scale, beside a static page of the same size.

Data: `generate_synthetic --scale 10 --seed 1` in a scratch PostgreSQL database, then `compute_stats` (the pages
read stored stats, as in production). Measured: `/releases/<version>/` and `/releases/<version>/enhancements/`
for the release with the most tracked enhancements (budget 0.1 s each, within 3x of the floor), plus the release
list and dashboard for information.
"""

from django.core.management import call_command
from django.db.models import Count

from bench.core import Figure, scratch_database
from bench.pages import page_figures


def run() -> list[Figure]:
    from releases.models import Release

    with scratch_database():
        call_command("generate_synthetic", "--scale", "10", "--seed", "1", verbosity=0)
        call_command("compute_stats", verbosity=0)
        busiest = Release.objects.annotate(n=Count("tracked_enhancements")).order_by("-n", "-major", "-minor").first()
        count = busiest.tracked_enhancements.count()
        label = f"(v{busiest.version}, {count:,} tracked)"
        figures = page_figures(
            {
                f"/releases/{busiest.version}/": f"release detail {label}",
                f"/releases/{busiest.version}/enhancements/": f"enhancement list {label}",
            },
            budget=0.1,
            max_ratio=3.0,
            prefix="page",
        )
        # For information only (no budget in the issue): the other two release pages.
        figures += page_figures({"/releases/": "release list", "/": "dashboard"}, budget=None, max_ratio=None)
    return figures
