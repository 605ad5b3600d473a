"""import_meeting_notes over ten years of SIG meeting notes, into a scratch database.

The shared samples hold SIG Node's 2021 and 2022 archives (~175 KB each, 52 meetings each). The bench writes
ten yearly archives into bench/.work/sig-node/archive by replicating them with the years shifted (2013-2022:
file names and every year in the text), so headings that carry no year take the file's, as upstream. Figures,
each beside its floor:

* full import into an empty database (wall, median of 3 with the tables emptied between runs) vs a plain
  Markdown parse of the same text with the `markdown` package (median of 3);
* unchanged re-import (wall), asserting that it sent no INSERT/UPDATE/DELETE to the database;
* peak memory of a full import (tracemalloc, Python allocations) vs that of the Markdown parse.

The import asks for release stats to be recomputed after it commits (`release_stats_request`); in production
that queues Celery jobs for the worker. Without a broker the bench settings run tasks eagerly, which would put
the stats computation (a separate job, benchmarked on its own) inside the import's time, so the queue is
replaced by a recorder here and the number of recomputes queued is printed with the figure.
"""

import re
import resource
import shutil
import statistics
from io import StringIO
from pathlib import Path
from unittest import mock

import markdown
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bench.core import Figure, peak_memory_mb, scratch_database, wall_time

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT.parent / "shared" / "data" / "upstream" / "community" / "sig-node" / "archive"
WORK = Path(__file__).resolve().parent / ".work" / "sig-node" / "archive"
YEARS = 10
REPEAT = 3


def build_archives() -> list[Path]:
    """Ten yearly archives in the upstream format: the two samples, replicated with shifted years."""
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    samples = {
        2021: (UPSTREAM / "meeting-notes-2021.md").read_text(),
        2022: (UPSTREAM / "meeting-notes-2022.md").read_text(),
    }
    written = []
    for i in range(YEARS):
        year = 2022 - i
        source_year = 2022 if i % 2 == 0 else 2021
        # Neither sample has a Feb 29, so any shifted year keeps every date valid. Release versions move on by
        # six minors per copied pair of years, so each year's retros are about releases of their own.
        shift = 6 * (i // 2)
        text = samples[source_year].replace(str(source_year), str(year))
        text = re.sub(r"(?<![\d.])1\.(\d{2})(?!\d)", lambda m, shift=shift: f"1.{int(m.group(1)) + shift}", text)
        target = WORK / f"meeting-notes-{year}.md"
        target.write_text(text)
        written.append(target)
    return sorted(written)


def markdown_floor(texts: list[str]) -> None:
    """The cheapest comparable work: render the same Markdown with the `markdown` package."""
    for text in texts:
        markdown.markdown(text)


def import_archives() -> str:
    out = StringIO()
    call_command("import_meeting_notes", str(WORK), "--sig", "sig-node", verbosity=1, stdout=out, stderr=StringIO())
    return out.getvalue()


def empty_tables() -> None:
    from community.models import Person, Sig
    from keps.models import Kep
    from meetings.models import Meeting
    from releases.models import Release, TrackedEnhancement
    from retros.models import Retrospective

    Meeting.objects.all().delete()
    Retrospective.objects.all().delete()
    TrackedEnhancement.objects.all().delete()
    Kep.objects.all().delete()
    Release.objects.all().delete()
    Person.objects.all().delete()
    Sig.objects.all().delete()


def _full_imports(texts: list[str], queued: mock.MagicMock) -> tuple[float, float, int]:
    """REPEAT full imports into emptied tables, each beside a Markdown parse of the same text: the medians of
    both, and the stats recomputes the last import queued (one per release touched; tables and ids are new each
    run)."""
    imports, floors = [], []
    for _ in range(REPEAT):
        empty_tables()
        floors.append(wall_time(lambda: markdown_floor(texts)))
        queued.reset_mock()
        imports.append(wall_time(import_archives))
    stats_jobs = len({pk for call in queued.call_args_list for pk in call.args[0]})
    return statistics.median(imports), statistics.median(floors), stats_jobs


def _unchanged_reimport() -> tuple[float, int]:
    """The import run again over what it just wrote: its seconds and queries, having written nothing."""
    with CaptureQueriesContext(connection) as queries:
        output = []
        rerun_s = wall_time(lambda: output.append(import_archives()))
    assert "nothing to change" in output[0], output[0].splitlines()[-1]
    writes = [q for q in queries if q["sql"].lstrip().split()[0].upper() in {"INSERT", "UPDATE", "DELETE"}]
    assert not writes, f"unchanged re-import wrote: {writes[:3]}"
    return rerun_s, len(queries)


def run() -> list[Figure]:
    if not UPSTREAM.is_dir():
        print(f"skipped: upstream samples not found at {UPSTREAM}")
        return []
    files = build_archives()
    texts = [path.read_text() for path in files]
    size_mb = sum(len(t.encode()) for t in texts) / 1e6
    with scratch_database(), mock.patch("releases.services.stats._enqueue") as queued:
        from meetings.models import AgendaItem, Meeting

        import_s, floor_s, stats_jobs = _full_imports(texts, queued)
        meetings, items = Meeting.objects.count(), AgendaItem.objects.count()
        assert meetings == 52 * YEARS, meetings
        rerun_s, rerun_queries = _unchanged_reimport()
        empty_tables()
        _, floor_peak = peak_memory_mb(lambda: markdown_floor(texts))
        _, import_peak = peak_memory_mb(import_archives)
        max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        vendor = connection.vendor
    what = f"{YEARS} yearly files, {size_mb:.2f} MB, {meetings} meetings, {items} items, {vendor}"
    print(f"import {import_s:.2f} s (markdown {floor_s:.2f} s), peak {import_peak:.1f} MB, max RSS {max_rss:.0f} MB")
    return [
        Figure(
            "import_meeting_notes: 10 years into empty DB (wall)",
            import_s,
            "s",
            floor=floor_s,
            budget=3,
            max_ratio=3,
            note=f"{what}; floor = markdown.markdown; peak {import_peak:.0f} MB; {stats_jobs} stats jobs queued",
        ),
        Figure(
            "import_meeting_notes: unchanged re-import (wall)",
            rerun_s,
            "s",
            floor=floor_s,
            note=f"0 rows written ({rerun_queries} queries)",
        ),
        Figure(
            "import_meeting_notes: peak memory of a full import",
            import_peak,
            "MB",
            floor=floor_peak,
            note=f"tracemalloc; floor = markdown parse; process max RSS {max_rss:.0f} MB",
        ),
    ]
