"""refresh_upstream over generated repositories the shape of the three upstream ones.

- enhancements: a copy of bench_kep_history's generated history (~1,900 first-parent commits of kep.yaml changes,
  ~900 KEPs);
- sig-release: the shared sample release directories, one commit;
- community: the shared sigs.yaml and sig-node meeting-note archives, one commit.

Figures, each measured in the same run as its floor:

* first refresh into empty tables, clone time apart (the three fetches and checkouts, run at once as the refresh
  runs them), vs the floor: the same imports run by hand on the same checkouts, in the refresh's order of sources
  (`import_keps`, `import_keps --history`, `import_sigs`, `import_meeting_notes`, `import_releases`) into empty
  tables (budget 1.5x);
* a refresh over a week of upstream commits (60 kep.yaml changes, 10 to release directories, 10 to meeting notes,
  commits touching nothing imported between them) vs the first refresh (budget 10 %);
* an up-to-date refresh (budget 2 s).
"""

import os
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from io import StringIO
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import override_settings

from bench import bench_kep_history
from bench.core import Figure, scratch_database

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT.parent / "shared" / "data" / "upstream"
WORK = Path(__file__).resolve().parent / ".work" / "upstream"
WEEK_KEP_COMMITS = 60
WEEK_OTHER_COMMITS = 10


def _git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com"}
    env.update(GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="b@example.com")
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True, text=True).stdout


def _remote_from_folder(name: str, files: dict[str, Path]) -> Path:
    """A bare repository `name`.git holding `files` (path in repo -> sample file), one commit."""
    work, bare = WORK / f"{name}-work", WORK / f"{name}.git"
    work.mkdir(parents=True)
    _git("init", "-q", "-b", "master", cwd=work)
    for path, sample in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sample, work / path)
    _git("add", "-A", cwd=work)
    _git("commit", "-q", "-m", "samples", cwd=work)
    _git("clone", "-q", "--bare", str(work), str(bare), cwd=WORK)
    return bare


def build_remotes() -> dict[str, Path]:
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    bench_kep_history.build_repository()
    enhancements = WORK / "enhancements.git"
    _git("clone", "-q", "--bare", str(bench_kep_history.WORK), str(enhancements), cwd=WORK)
    releases = UPSTREAM / "sig-release"
    sig_release = _remote_from_folder(
        "sig-release", {str(p.relative_to(releases)): p for p in (releases / "releases").rglob("*") if p.is_file()}
    )
    community_dir = UPSTREAM / "community"
    community = _remote_from_folder(
        "community", {str(p.relative_to(community_dir)): p for p in community_dir.rglob("*") if p.is_file()}
    )
    return {"enhancements": enhancements, "sig-release": sig_release, "community": community}


def _week_of_commits(remotes: dict[str, Path]) -> int:
    """Push a week of upstream-like commits to each remote; the number of commits."""
    count = 0
    for name, bare in remotes.items():
        work = WORK / f"{name}-week"
        if work.exists():
            shutil.rmtree(work)
        _git("clone", "-q", str(bare), str(work), cwd=WORK)
        if name == "enhancements":
            files = sorted(str(p.relative_to(work)) for p in (work / "keps").rglob("kep.yaml"))[:WEEK_KEP_COMMITS]
        elif name == "sig-release":  # a week's work is on the current release's directory
            files = [str(p.relative_to(work)) for p in sorted((work / "releases" / "release-1.35").iterdir())]
            files = (files * WEEK_OTHER_COMMITS)[:WEEK_OTHER_COMMITS]
        else:  # a weekly meeting: this year's notes file
            files = [str(p.relative_to(work)) for p in sorted((work / "sig-node" / "archive").glob("*.md"))[-1:]]
            files = (files * WEEK_OTHER_COMMITS)[:WEEK_OTHER_COMMITS]
        for index, path in enumerate(files):
            with (work / path).open("a") as handle:
                handle.write(f"# edit {index}\n" if path.endswith(".yaml") else f"\n<!-- edit {index} -->\n")
            _git("commit", "-q", "-am", f"edit {index}", cwd=work)
            (work / "NOTES.md").write_text(f"unrelated {index}\n")
            _git("add", "NOTES.md", cwd=work)
            _git("commit", "-q", "-m", f"unrelated {index}", cwd=work)
            count += 2
        _git("push", "-q", "origin", "master", cwd=work)
    return count


def _command(*args: str) -> str:
    out = StringIO()
    try:
        call_command(*args, stdout=out, stderr=StringIO(), verbosity=1)
    except CommandError as exc:
        assert exc.returncode == 1, exc  # files skipped as bad input (unnumbered drafts, template)
    return out.getvalue()


def _timed(func) -> float:
    started = time.perf_counter()
    func()
    return time.perf_counter() - started


def run() -> list[Figure]:
    if not UPSTREAM.is_dir():
        print(f"skipped: upstream samples not found at {UPSTREAM}")
        return []
    remotes = build_remotes()
    clones = Path(tempfile.mkdtemp(prefix="bench-upstream-"))
    overrides = override_settings(
        SIGTRACKER_UPSTREAM_ALLOW_FILE=True,
        SIGTRACKER_UPSTREAM_DIR=str(clones),
        SIGTRACKER_UPSTREAM_ENHANCEMENTS=f"file://{remotes['enhancements']}",
        SIGTRACKER_UPSTREAM_SIG_RELEASE=f"file://{remotes['sig-release']}",
        SIGTRACKER_UPSTREAM_COMMUNITY=f"file://{remotes['community']}",
        SIGTRACKER_UPSTREAM_NOTES_SIGS=["sig-node"],
    )
    overrides.enable()
    try:
        from upstream import repository

        # Clone time: the three fetches and checkouts alone (what `git clone` does), into folders of their own
        # (the checkouts the floor imports from), run at once as the refresh runs its git work.
        checkouts = Path(tempfile.mkdtemp(prefix="bench-checkouts-"))

        def clone(name: str) -> None:
            head = repository.repository_fetch(checkout=checkouts / name, url=f"file://{remotes[name]}").commit
            repository.repository_checkout(checkout=checkouts / name, commit=head)

        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(remotes)) as pool:
            list(pool.map(clone, remotes))
        clone_s = time.perf_counter() - started

        with scratch_database():
            archive = checkouts / "community" / "sig-node" / "archive"

            def by_hand():
                # In the refresh's order of sources (upstream.sources.SOURCE_SETTINGS).
                _command("import_keps", str(checkouts / "enhancements"))
                _command("import_keps", "--history", str(checkouts / "enhancements"))
                _command("import_sigs", str(checkouts / "community" / "sigs.yaml"))
                _command("import_meeting_notes", str(archive))
                _command("import_releases", str(checkouts / "sig-release" / "releases"))

            floor_s = _timed(by_hand)
        with scratch_database():
            from upstream.models import UpstreamRun

            first_s = _timed(lambda: _command("refresh_upstream", "--wait", "0"))
            outcomes = dict(UpstreamRun.objects.values_list("source__name", "outcome"))
            first_each = dict(UpstreamRun.objects.values_list("source__name", "duration_seconds"))
            commits = _week_of_commits(remotes)
            week_s = _timed(lambda: _command("refresh_upstream", "--wait", "0"))
            week_each: dict[str, float] = {}
            for name, seconds in UpstreamRun.objects.order_by("-started_at").values_list(
                "source__name", "duration_seconds"
            ):
                week_each.setdefault(name, round(seconds, 2))
            print("first, per source", {k: round(v, 2) for k, v in first_each.items()}, "week", week_each)
            current_s = min(_timed(lambda: _command("refresh_upstream", "--wait", "0")) for _ in range(3))
            vendor = connection.vendor
    finally:
        overrides.disable()
        shutil.rmtree(clones, ignore_errors=True)
        shutil.rmtree(checkouts, ignore_errors=True)
    print(f"clone {clone_s:.2f} s, by hand {floor_s:.2f} s, first refresh {first_s:.2f} s ({outcomes})")
    print(f"week ({commits} commits) {week_s:.2f} s, up to date {current_s:.2f} s")
    return [
        Figure(
            "refresh_upstream: first refresh, clone time apart (wall)",
            max(first_s - clone_s, 0.0),
            "s",
            floor=floor_s,
            max_ratio=1.5,
            note=f"{vendor}; floor = the five imports by hand on the same checkouts; clone {clone_s:.1f} s",
        ),
        Figure(
            "refresh_upstream: a week of upstream commits (wall)",
            week_s,
            "s",
            floor=first_s,
            max_ratio=0.10,
            note=f"{commits} commits; floor = the first refresh",
        ),
        Figure("refresh_upstream: up to date (wall)", current_s, "s", budget=2),
    ]
