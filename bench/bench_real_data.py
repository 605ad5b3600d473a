"""Every public page on real data: the whole upstream import on top of the synthetic volume, rendered uncached.

Data, in a scratch PostgreSQL database: `generate_synthetic --scale REAL_SCALE` (default 10) for volume, then the
real upstream files of ../shared/data/upstream as a SIG Node lead would import them: `import_sigs` (sigs.yaml),
`import_keps` (the kubernetes/enhancements sample), `import_schedule` (sig-release READMEs) and
`import_meeting_notes` (the SIG Node archive), then `compute_stats`. Measured with bench/pages.py (median of the
same Django stack, beside a static page of the same size): every public page a visitor reaches, each release's
pages, the KEPs and meetings the real files brought, and meeting search for words of the real notes
("kubelet", "cgroup v2"). Budget 0.1 s uncached for each (issue: every public page ≤ 100 ms, search too).
"""

import os
from pathlib import Path

from django.core.management import CommandError, call_command
from django.db.models import Count

from bench.core import Figure, scratch_database, wall_time
from bench.pages import page_figures

UPSTREAM = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "upstream"
SCALE = os.environ.get("REAL_SCALE", "10")
#: Fewer repeats than the page benches: there are many pages, and each is one figure.
REPEAT = int(os.environ.get("REAL_REPEAT", "7"))


def _import() -> dict[str, float]:
    seconds = {}
    steps = [
        ("import_sigs", [str(UPSTREAM / "community" / "sigs.yaml")], {}),
        ("import_keps", [str(UPSTREAM / "enhancements")], {}),
        ("import_schedule", [str(UPSTREAM / "sig-release" / "releases")], {}),
        (
            "import_meeting_notes",
            sorted(str(p) for p in (UPSTREAM / "community" / "sig-node" / "archive").glob("meeting-notes-*.md")),
            {"sig": "sig-node"},
        ),
    ]
    for command, args, options in steps:

        def step(command=command, args=args, options=options):
            try:
                call_command(command, *args, verbosity=0, **options)
            except CommandError as exc:  # exit 1: some files skipped, the rest imported (the importers' contract)
                if exc.returncode != 1:
                    raise
                print(f"   {command}: {exc}")

        seconds[command] = wall_time(step)
    seconds["compute_stats"] = wall_time(lambda: call_command("compute_stats", verbosity=0))
    return seconds


def _analyze() -> None:
    """Statistics as a running site has them: autovacuum analyzes a table once a tenth of it has changed, within
    a minute of an import, so readers meet a planner that knows the imported rows. Without it the first plans are
    made on the synthetic volume's statistics alone (search measured 64 ms either way on 2 Dec 2026, but other
    plans may differ)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def _pages() -> dict[str, str]:
    from community.models import Sig
    from keps.models import DesignGroup, Kep
    from meetings.models import Meeting
    from releases.models import Release

    pages = {
        "/": "dashboard",
        "/releases/": "release list",
        "/keps/": "KEP list",
        "/keps/perma-beta/": "perma-beta",
        "/keps/feature-gates/": "feature-gate ledger",
        "/keps/approvers/": "review load",
        "/design-groups/": "design groups",
        "/meetings/": "meeting list",
        "/meetings/?q=kubelet": "search (real notes)",
        "/meetings/?q=cgroup+v2": "search, two words",
        "/calendar.ics": "calendar",
    }
    for release in Release.objects.annotate(n=Count("tracked_enhancements")).order_by("-n", "-major", "-minor")[:3]:
        pages[f"/releases/{release.version}/"] = f"release v{release.version} ({release.n} tracked)"
        pages[f"/releases/{release.version}/enhancements/"] = f"enhancements v{release.version}"
    real = Release.objects.filter(source_url__contains="sig-release").order_by("-major", "-minor").first()
    if real is not None:
        pages.setdefault(f"/releases/{real.version}/", f"release v{real.version} (imported README)")
    for kep in Kep.objects.filter(number__in=[1287, 2400, 753, 4742]).order_by("number"):
        pages[kep.get_absolute_url()] = f"KEP-{kep.number} (real kep.yaml)"
    node = Sig.objects.filter(slug="sig-node").first()
    if node is not None:
        pages[f"/sigs/{node.slug}/meetings.ics"] = "SIG Node meetings calendar"
        meeting = Meeting.objects.filter(sig=node).annotate(n=Count("agenda_items")).order_by("-n", "-date").first()
        if meeting is not None:
            pages[meeting.get_absolute_url()] = f"busiest real meeting ({meeting.n} items)"
    group = DesignGroup.objects.annotate(n=Count("keps")).order_by("-n").first()
    if group is not None:
        pages[group.get_absolute_url()] = "design group"
    return pages


def run() -> list[Figure]:
    from keps.models import Kep
    from meetings.models import AgendaItem, Meeting

    if not UPSTREAM.is_dir():
        print(f"  real data: skipped ({UPSTREAM} is missing)")
        return []
    with scratch_database():
        call_command("generate_synthetic", "--scale", SCALE, "--seed", "1", verbosity=0)
        seconds = _import()
        _analyze()
        print(
            f"   scale {SCALE} + upstream: {Kep.objects.count():,} KEPs, {Meeting.objects.count():,} meetings, "
            f"{AgendaItem.objects.count():,} agenda items; "
            + ", ".join(f"{name} {value:.1f} s" for name, value in seconds.items())
            + f"; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )
        figures = page_figures(_pages(), budget=0.1, max_ratio=None, repeat=REPEAT, prefix="real data:")
    # The budget is for the uncached render (a cache miss); the cached figures are kept for information.
    for figure in figures:
        if "uncached" not in figure.name:
            figure.budget = None
    return figures
