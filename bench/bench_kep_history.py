"""import_keps --history over a generated git repository the size of kubernetes/enhancements' kep.yaml history.

The repository (bench/.work/enhancements-history.git, bare) is written in one `git fast-import` stream:
FIRST_PARENT_COMMITS commits on master touching kep.yaml, FILE_CHANGES file changes in all, KEPS KEPs, from the
shared upstream kep.yaml samples renumbered, with their plans moved release by release (slips, graduations),
some renames (a copy, then a delete) and unnumbered `0000-` drafts. Upstream measured 1,861 commits, 2,579 file
changes, ~900 KEPs. Figures, each beside its floor measured in the same run:

* full history import into empty tables (wall, median of REPEAT) vs the floor: the same `git log
  --first-parent --raw` pass, one `git cat-file --batch` of the same blobs and a PyYAML C-loader parse of each;
* up-to-date re-run (wall);
* peak memory of a full import (tracemalloc, Python allocations).
"""

import random
import re
import resource
import shutil
import statistics
import subprocess
from io import StringIO
from pathlib import Path

import yaml
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from bench.core import Figure, peak_memory_mb, scratch_database, wall_time

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM_KEPS = ROOT.parent / "shared" / "data" / "upstream" / "enhancements" / "keps"
WORK = Path(__file__).resolve().parent / ".work" / "enhancements-history.git"
KEPS = 900
FIRST_PARENT_COMMITS = 1900
FILE_CHANGES = 2500
REPEAT = 5
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FIELD = {name: re.compile(rf"^{name}:.*$", re.MULTILINE) for name in ("kep-number", "stage", "latest-milestone")}
_STAGES = ("alpha", "beta", "stable")


def _with(text: str, **fields: str) -> str:
    for name, value in fields.items():
        pattern = _FIELD[name.replace("_", "-")]
        line = f"{name.replace('_', '-')}: {value}"
        text = pattern.sub(line, text, count=1) if pattern.search(text) else text + line + "\n"
    return text


class _FastImportStream:
    """A `git fast-import` stream of commits on master, each a random while after the one before."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.chunks: list[bytes] = []
        self.when = 1_580_000_000  # 2020-01-26, when kep.yaml arrived
        self.changes = self.commits = 0

    def commit(self, files: list[tuple[str, str | None]]) -> None:
        """One commit writing each (path, text), or deleting the path where the text is None."""
        self.when += self.rng.randint(3_000, 90_000)
        message = b"Merge pull request"
        self.chunks.append(b"commit refs/heads/master\n")
        self.chunks.append(f"committer Bench <bench@example.com> {self.when} +0000\n".encode())
        self.chunks.append(b"data %d\n%s\n" % (len(message), message))
        for path, text in files:
            if text is None:
                self.chunks.append(f"D {path}\n".encode())
            else:
                data = text.encode()
                self.chunks.append(f"M 100644 inline {path}\n".encode())
                self.chunks.append(b"data %d\n%s\n" % (len(data), data))
        self.changes += len(files)
        self.commits += 1


def _render(texts: list[str], kep: list) -> str:
    """A KEP's kep.yaml as it now stands: its sample's text with its number, stage and latest milestone."""
    path, number, index, stage, minor = kep
    return _with(texts[index], kep_number=str(number), stage=_STAGES[stage], latest_milestone=f'"v1.{minor}"')


def _add_keps(stream: _FastImportStream, samples: list[Path], texts: list[str]) -> list[list]:
    """KEPS KEPs, one commit each, from the samples renumbered; each as [path, number, text index, stage index,
    minor] for the later commits to move."""
    keps = []
    for i in range(KEPS):
        source = samples[i % len(samples)]
        number = 5000 + i
        path = f"keps/{source.parent.parent.name}/{number}-{source.parent.name.partition('-')[2]}/kep.yaml"
        kep = [path, number, i % len(texts), 0, stream.rng.randint(18, 30)]
        keps.append(kep)
        stream.commit([(path, _render(texts, kep))])
    return keps


def _move_keps(stream: _FastImportStream, keps: list[list], texts: list[str]) -> None:
    """Commits of one or two file changes up to FIRST_PARENT_COMMITS (two often enough to reach FILE_CHANGES):
    slips, graduations, renames and unnumbered drafts."""
    rng = stream.rng
    drafts = 0
    while stream.commits < FIRST_PARENT_COMMITS:
        left = FIRST_PARENT_COMMITS - stream.commits
        files = []
        for kep in rng.sample(keps, 2 if rng.random() < (FILE_CHANGES - stream.changes - left) / left else 1):
            roll = rng.random()
            if roll < 0.45:
                kep[4] += 1  # moved a release later: a slip
            elif roll < 0.75 and kep[3] < 2:
                kep[3], kep[4] = kep[3] + 1, kep[4] + 1  # graduated
            elif roll < 0.77:
                old, kep[0] = kep[0], kep[0].replace("/keps/", "/").replace("kep.yaml", "") + "moved/kep.yaml"
                files.append((kep[0], _render(texts, kep)))
                files.append((old, None))  # a rename: copy and delete in one commit
                continue
            elif roll < 0.79:
                drafts += 1
                files.append((f"keps/sig-node/0000-draft-{drafts}/kep.yaml", texts[0].replace("kep-number", "x")))
                continue
            files.append((kep[0], _render(texts, kep)))
        stream.commit(files)


def build_repository() -> tuple[int, int]:
    """Write the repository with `git fast-import`; (commits, file changes)."""
    if WORK.exists():
        shutil.rmtree(WORK)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "master", str(WORK)], check=True)
    samples = sorted(UPSTREAM_KEPS.glob("sig-*/*/kep.yaml"))
    texts = [path.read_text() for path in samples]
    stream = _FastImportStream(random.Random(26))
    keps = _add_keps(stream, samples, texts)
    _move_keps(stream, keps, texts)
    subprocess.run(["git", "-C", str(WORK), "fast-import", "--quiet"], input=b"".join(stream.chunks), check=True)
    return stream.commits, stream.changes


def parse_floor() -> None:
    """The same git reads and a C-loader parse of each blob: the least any importer can do."""
    log = subprocess.run(
        [
            "git",
            "-C",
            str(WORK),
            "log",
            "--first-parent",
            "--diff-merges=first-parent",
            "--raw",
            "--no-abbrev",
            "--no-renames",
            "--format=commit %H %cI",
            "master",
            "--",
            ":(top,glob)keps/**/kep.yaml",
        ],
        capture_output=True,
        check=True,
    ).stdout.decode()
    blobs = sorted({line.split()[3] for line in log.splitlines() if line.startswith(":")} - {"0" * 40})
    data = subprocess.run(
        ["git", "-C", str(WORK), "cat-file", "--batch"],
        input=("\n".join(blobs) + "\n").encode(),
        capture_output=True,
        check=True,
    ).stdout
    position = 0
    for _ in blobs:
        end = data.index(b"\n", position)
        size = int(data[position:end].split()[2])
        text = data[end + 1 : end + 1 + size].decode()
        position = end + 2 + size
        try:
            yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader
        except (ValueError, yaml.YAMLError):
            pass


def import_history() -> str:
    out = StringIO()
    try:
        call_command("import_keps", "--history", str(WORK), verbosity=1, stdout=out, stderr=StringIO())
    except CommandError as exc:  # exit 1: the unnumbered drafts are skipped, as upstream's are
        assert exc.returncode == 1, exc
    return out.getvalue()


def empty_tables() -> None:
    from keps.models import KepHistoryCursor, KepPlanChange

    KepPlanChange.objects.all().delete()
    KepHistoryCursor.objects.all().delete()


def run() -> list[Figure]:
    if not UPSTREAM_KEPS.is_dir():
        print(f"skipped: upstream samples not found at {UPSTREAM_KEPS}")
        return []
    n_commits, n_changes = build_repository()
    size = f"{n_commits} commits, {n_changes} kep.yaml changes, {KEPS} KEPs"
    with scratch_database():
        from keps.models import KepPlanChange

        imports, floors = [], []
        for _ in range(REPEAT):
            empty_tables()
            floors.append(wall_time(parse_floor))
            imports.append(wall_time(import_history))
        rows = KepPlanChange.objects.count()
        slips = KepPlanChange.objects.exclude(slipped_from="").count()
        print("imports", [round(x, 3) for x in imports], "floors", [round(x, 3) for x in floors])
        floor_s, import_s = min(floors), statistics.median(imports)
        output = ""

        def rerun():
            nonlocal output
            output = import_history()

        rerun_s = statistics.median(wall_time(rerun) for _ in range(3))
        assert "no new commits" in output, output
        empty_tables()
        _, floor_peak = peak_memory_mb(parse_floor)
        _, import_peak = peak_memory_mb(import_history)
        max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        vendor = connection.vendor
    print(f"history import {import_s:.2f} s ({rows} plan changes, {slips} slips), peak {import_peak:.1f} MB")
    return [
        Figure(
            "import_keps --history: full history into empty tables (wall)",
            import_s,
            "s",
            floor=floor_s,
            max_ratio=2,
            note=f"{size}, {vendor}; floor = git log + cat-file + C-loader parse; {rows} changes, {slips} slips",
        ),
        Figure("import_keps --history: up-to-date re-run (wall)", rerun_s, "s", budget=1),
        Figure(
            "import_keps --history: peak memory of a full import",
            import_peak,
            "MB",
            floor=floor_peak,
            budget=100,
            note=f"tracemalloc; process max RSS {max_rss:.0f} MB",
        ),
    ]
