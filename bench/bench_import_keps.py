"""import_keps over a tree the size of the whole kubernetes/enhancements one, into a scratch database.

The shared samples hold ~190 kep.yaml and ~170 PRR files; the bench replicates them with new numbers and
directories (`<number + 10000·k>-<slug>`) into bench/.work/enhancements until it has FULL_KEPS kep.yaml and
FULL_PRR prod-readiness files, all in the real format with the real traps. Figures, each beside its floor:

* full import into an empty database (wall, median of REPEAT runs with the tables emptied between runs, each
  run printed; the first pays for warming up) vs merely parsing the same files with PyYAML's C loader in this
  process (median of as many runs, each just before an import);
* unchanged re-import (wall), asserting that it sent no INSERT/UPDATE/DELETE to the database;
* peak memory of a full import (tracemalloc, Python allocations), with the process's max RSS in the note.
"""

import re
import resource
import shutil
import statistics
from io import StringIO
from pathlib import Path

import yaml
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bench.core import Figure, peak_memory_mb, scratch_database, wall_time
from keps.bulk_writers import KEP_RELATIONS

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM_KEPS = ROOT.parent / "shared" / "data" / "upstream" / "enhancements" / "keps"
WORK = Path(__file__).resolve().parent / ".work" / "enhancements"
FULL_KEPS = 650
FULL_PRR = 450
REPEAT = 6
_NUMBER_LINE = re.compile(r'^kep-number:\s*"?(\d+)"?\s*$', re.MULTILINE)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _renumber(text: str, offset: int) -> str:
    return _NUMBER_LINE.sub(lambda m: f"kep-number: {int(m.group(1)) + offset}", text, count=1)


def build_tree() -> tuple[list[Path], int, int]:
    """Write the full-size tree into bench/.work; (its files, kep.yaml count, PRR count)."""
    if WORK.exists():
        shutil.rmtree(WORK)
    keps = sorted(p for p in UPSTREAM_KEPS.glob("sig-*/*/kep.yaml"))
    prrs = sorted((UPSTREAM_KEPS / "prod-readiness").rglob("*.yaml"))
    written: list[Path] = []
    for i in range(FULL_KEPS):
        source, offset = keps[i % len(keps)], 10000 * (i // len(keps))
        prefix, _, rest = source.parent.name.partition("-")
        target = WORK / "keps" / source.parent.parent.name / f"{int(prefix) + offset}-{rest}" / "kep.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_renumber(source.read_text(), offset))
        written.append(target)
    for i in range(FULL_PRR):
        source, offset = prrs[i % len(prrs)], 10000 * (i // len(prrs))
        target = WORK / "keps" / "prod-readiness" / source.parent.name / f"{int(source.stem) + offset}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_renumber(source.read_text(), offset))
        written.append(target)
    return written, FULL_KEPS, FULL_PRR


def parse_floor(files: list[Path]) -> None:
    """The cheapest way to read the same input: each file's text through PyYAML's C loader."""
    for path in files:
        try:
            yaml.load(path.read_text(), Loader=_LOADER)  # noqa: S506 - a safe loader
        except ValueError:  # the plain loader chokes on `creation-date: 2025-30-01`; the time still counts
            pass


def import_tree() -> str:
    out = StringIO()
    call_command("import_keps", str(WORK), verbosity=1, stdout=out, stderr=StringIO())
    return out.getvalue()


def empty_tables() -> None:
    """Back to an empty database for the next run: TRUNCATE on PostgreSQL (no dead rows left behind for the
    next import to step over, as in a new database), DELETE elsewhere."""
    from community.models import Person, Sig
    from keps.models import FeatureGate, Kep, PrrApproval

    models = [PrrApproval, FeatureGate, *(Kep._meta.get_field(name).remote_field.through for name in KEP_RELATIONS)]
    models += [Kep, Person, Sig]
    if connection.vendor == "postgresql":
        tables = ", ".join(connection.ops.quote_name(model._meta.db_table) for model in models)
        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE {tables} CASCADE")
        return
    for model in models:
        model.objects.all().delete()


def run() -> list[Figure]:
    if not UPSTREAM_KEPS.is_dir():
        print(f"skipped: upstream samples not found at {UPSTREAM_KEPS}")
        return []
    files, n_keps, n_prr = build_tree()
    size = f"{n_keps} kep.yaml + {n_prr} PRR files"
    with scratch_database():
        from keps.models import Kep

        imports, parses = [], []
        for _ in range(REPEAT):
            empty_tables()
            parses.append(wall_time(lambda: parse_floor(files)))
            imports.append(wall_time(import_tree))
        assert Kep.objects.count() == n_keps, Kep.objects.count()
        print("imports", [round(x, 3) for x in imports], "parses", [round(x, 3) for x in parses])
        parse_s, import_s = statistics.median(parses), statistics.median(imports)

        with CaptureQueriesContext(connection) as queries:
            rerun_s = wall_time(lambda: _check_unchanged(import_tree()))
        writes = [q for q in queries if q["sql"].lstrip().split()[0].upper() in {"INSERT", "UPDATE", "DELETE"}]
        assert not writes, f"unchanged re-import wrote: {writes[:3]}"
        print(f"unchanged re-import: {len(queries)} queries, {len(writes)} writes")

        empty_tables()
        _, parse_peak = peak_memory_mb(lambda: parse_floor(files))
        _, import_peak = peak_memory_mb(import_tree)
        max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        vendor = connection.vendor
    print(f"import {import_s:.2f} s, peak {import_peak:.1f} MB (tracemalloc), max RSS {max_rss:.0f} MB")
    return [
        Figure(
            "import_keps: full tree into empty DB (wall)",
            import_s,
            "s",
            floor=parse_s,
            budget=5,
            max_ratio=2,
            note=f"{size}, {vendor}; floor = C-loader parse; peak {import_peak:.0f} MB",
        ),
        Figure(
            "import_keps: unchanged re-import (wall)",
            rerun_s,
            "s",
            floor=parse_s,
            budget=2,
            note=f"0 rows written ({len(queries)} queries)",
        ),
        Figure(
            "import_keps: peak memory of a full import",
            import_peak,
            "MB",
            floor=parse_peak,
            budget=300,
            note=f"tracemalloc; process max RSS {max_rss:.0f} MB",
        ),
    ]


def _check_unchanged(output: str) -> None:
    assert "nothing to change" in output, output.splitlines()[-1]
