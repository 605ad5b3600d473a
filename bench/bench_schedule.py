"""import_schedule over twenty release READMEs (as many as 1.18–1.37), into a scratch database.

The shared samples hold releases 1.22–1.27; the bench writes them again under release-1.18 … release-1.37
(version numbers in the text rewritten, dates as they are) into bench/.work/schedules. No budget is named
for schedules; the figures show where the time goes, each beside its floor — reading and parsing the same
files with `parse_schedule` alone, in the same process:

* full import into an empty database (wall, median of 3 with the tables emptied between runs);
* unchanged re-import (wall), asserting that it sent no INSERT/UPDATE/DELETE to the database.
"""

import re
import shutil
import statistics
from io import StringIO
from pathlib import Path

from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bench.core import Figure, scratch_database, wall_time

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM_RELEASES = ROOT.parent / "shared" / "data" / "upstream" / "sig-release" / "releases"
WORK = Path(__file__).resolve().parent / ".work" / "schedules"
RELEASES = [f"1.{minor}" for minor in range(18, 38)]
REPEAT = 3


def build_tree() -> list[Path]:
    """Write one README per release of RELEASES into bench/.work/schedules; return their paths."""
    if WORK.exists():
        shutil.rmtree(WORK)
    samples = sorted(UPSTREAM_RELEASES.glob("release-1.*/README.md"))
    written = []
    for index, version in enumerate(RELEASES):
        source = samples[index % len(samples)]
        old = source.parent.name.removeprefix("release-")
        old_compact, new_compact = old.replace(".", ""), version.replace(".", "")
        text = re.sub(rf"(?<![\d.]){re.escape(old)}(?=[.\s:\-*)\]/]|$)", version, source.read_text())
        text = text.replace(f"k8s{old_compact}", f"k8s{new_compact}")
        target = WORK / f"release-{version}" / "README.md"
        target.parent.mkdir(parents=True)
        target.write_text(text)
        written.append(target)
    return written


def parse_floor(files: list[Path]) -> None:
    """Reading and parsing alone: the same files through `parse_schedule`, nothing written."""
    from core.importing import read_text
    from releases.importers.schedule import parse_schedule, version_from_path

    for path in files:
        parse_schedule(read_text(path), version_hint=version_from_path(path))


def import_tree() -> str:
    out = StringIO()
    call_command("import_schedule", str(WORK), verbosity=1, stdout=out, stderr=StringIO())
    return out.getvalue()


def run() -> list[Figure]:
    if not UPSTREAM_RELEASES.is_dir():
        print(f"skipped: upstream samples not found at {UPSTREAM_RELEASES}")
        return []
    files = build_tree()
    with scratch_database():
        from releases.models import Milestone, Release

        imports, parses = [], []
        for _ in range(REPEAT):
            Release.objects.all().delete()
            parses.append(wall_time(lambda: parse_floor(files)))
            imports.append(wall_time(import_tree))
        assert Release.objects.count() == len(RELEASES), Release.objects.count()
        milestones = Milestone.objects.count()
        parse_s, import_s = statistics.median(parses), statistics.median(imports)

        with CaptureQueriesContext(connection) as queries:
            output = ""

            def rerun():
                nonlocal output
                output = import_tree()

            rerun_s = wall_time(rerun)
        assert "nothing to change" in output, output.splitlines()[-1]
        writes = [q for q in queries if q["sql"].lstrip().split()[0].upper() in {"INSERT", "UPDATE", "DELETE"}]
        assert not writes, f"unchanged re-import wrote: {writes[:3]}"
        vendor = connection.vendor
    size = f"{len(files)} READMEs, {milestones} milestones, {vendor}"
    return [
        Figure(
            "import_schedule: 20 releases into empty DB (wall)",
            import_s,
            "s",
            floor=parse_s,
            note=f"{size}; floor = parse_schedule alone",
        ),
        Figure(
            "import_schedule: unchanged re-import (wall)",
            rerun_s,
            "s",
            floor=parse_s,
            note=f"0 rows written ({len(queries)} queries)",
        ),
    ]
