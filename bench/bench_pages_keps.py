"""Server time of the KEP and meeting pages at ten times real scale, beside a static page of the same size.

Data: `generate_synthetic --scale 10 --seed 1` in a scratch PostgreSQL database. Measured (budget 0.1 s each,
within 3x of the floor from bench/pages.py): the KEP list, the detail of the KEP with the longest history (most
releases tracked, then most agenda mentions), the perma-beta list, and a full-text search of the meetings
("perma beta"). The feature-gate, approver, design-group and plain meeting lists are measured for information.
"""

from django.core.management import call_command
from django.db.models import Count

from bench.core import Figure, scratch_database
from bench.pages import page_figures


def run() -> list[Figure]:
    from keps.models import DesignGroup, Kep
    from meetings.models import AgendaItem, Meeting

    with scratch_database():
        call_command("generate_synthetic", "--scale", "10", "--seed", "1", verbosity=0)
        busiest = (
            Kep.objects.annotate(
                releases=Count("tracked_enhancements", distinct=True), mentions=Count("agenda_items", distinct=True)
            )
            .order_by("-releases", "-mentions", "number")
            .first()
        )
        sizes = (
            f"{Kep.objects.count():,} KEPs, {Meeting.objects.count():,} meetings, "
            f"{AgendaItem.objects.count():,} agenda items"
        )
        print(f"   scale 10: {sizes}; KEP-{busiest.number}: {busiest.releases} releases, {busiest.mentions} mentions")
        figures = page_figures(
            {
                "/keps/": "KEP list",
                f"/keps/{busiest.number}/": f"KEP detail ({busiest.releases} releases, {busiest.mentions} mentions)",
                "/keps/perma-beta/": "perma-beta list",
                "/meetings/?q=perma+beta": "meeting full-text search",
            },
            budget=0.1,
            max_ratio=3.0,
            prefix="page",
        )
        group = DesignGroup.objects.annotate(n=Count("keps")).order_by("-n").first()
        info = {
            "/keps/feature-gates/": "feature-gate ledger",
            "/keps/approvers/": "review load",
            "/meetings/": "meeting list + chart",
            "/keps/?stage=beta&owning_sig=sig-node": "KEP list filtered",
        }
        if group:
            info[group.get_absolute_url()] = "design group"
        # For information only (no budget in the issue).
        figures += page_figures(info, budget=None, max_ratio=None)
    return figures
