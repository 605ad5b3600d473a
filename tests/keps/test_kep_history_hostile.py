"""`import_keps --history` on hostile clones: a blob bomb stays out of memory, the clone's config runs nothing."""

import os
import subprocess
import sys
import textwrap
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from keps.models import KepPlanChange
from tests.core.git_hostile import add_signed_commit, arm_config, marker_script, plain_git
from tests.keps.git_repos import EnhancementsRepo, kep_yaml

ROOT = Path(__file__).resolve().parents[2]
PATH = "keps/sig-node/1287-in-place-update-pod-resources/kep.yaml"
BIG = "keps/sig-node/9999-bomb/kep.yaml"

pytestmark = pytest.mark.django_db


def run(root):
    out, err = StringIO(), StringIO()
    try:
        call_command("import_keps", "--history", str(root), stdout=out, stderr=err)
    except CommandError as exc:
        return exc.returncode, out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def test_signed_commit_and_config_naming_a_program_run_nothing(tmp_path):
    repo = EnhancementsRepo(tmp_path / "enhancements")
    repo.commit({PATH: kep_yaml(1287, latest="1.22", milestones={"alpha": "1.22"})}, date="2021-05-01T10:00:00Z")
    marker = tmp_path / "ran"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    marker_script(hooks, marker, name="reference-transaction")
    add_signed_commit(repo.root, files={PATH: kep_yaml(1287, latest="1.23", milestones={"alpha": "1.23"})})
    arm_config(repo.root, marker_script(tmp_path, marker), hooks)
    # The control: the log the import reads, run by a git honouring the repository's config, runs the script.
    plain_git(repo.root, "log", "--raw", "--format=commit %H %cI", "master", "--", ":(top,glob)keps/**/kep.yaml")
    assert marker.exists()
    marker.unlink()

    code, _, err = run(repo.root)
    assert code == 0, err
    assert KepPlanChange.objects.count() == 2
    assert not marker.exists()


def _bomb_repo(root: Path, size: int) -> EnhancementsRepo:
    """A small history whose one kep.yaml blob is `size` bytes, written straight into the object store."""
    repo = EnhancementsRepo(root)
    repo.commit({PATH: kep_yaml(1287, latest="1.22", milestones={"alpha": "1.22"})}, date="2021-05-01T10:00:00Z")
    big = root / "bomb.yaml"
    with big.open("w") as handle:
        handle.write(kep_yaml(9999))
        line = "# " + "x" * 1000 + "\n"
        for _ in range(size // len(line)):
            handle.write(line)
    blob = plain_git(root, "hash-object", "-w", "--", str(big)).decode().strip()
    big.unlink()
    plain_git(root, "update-index", "--add", "--cacheinfo", f"100644,{blob},{BIG}")
    repo.git("commit", "-q", "-m", "bomb", date="2021-06-01T10:00:00Z")
    return repo


SCRIPT = textwrap.dedent(
    """
    import sys
    import django

    def high_water_kb():
        # VmHWM belongs to this process's own address space; ru_maxrss would also carry the forking pytest worker's
        # peak across exec (Linux keeps it), hundreds of MB late in a suite.
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

    from io import StringIO
    django.setup()
    from django.core.management import call_command
    from django.core.management.base import CommandError
    call_command("migrate", verbosity=0)
    before = high_water_kb()
    out, err = StringIO(), StringIO()
    code = 0
    try:
        call_command("import_keps", "--history", sys.argv[1], stdout=out, stderr=err)
    except CommandError as exc:
        code = exc.returncode
    peak = high_water_kb()
    print(code, before // 1024, peak // 1024)
    print(err.getvalue())
    """
)


def test_a_50_mb_kep_yaml_blob_is_refused_and_the_import_stays_small(tmp_path):
    repo = _bomb_repo(tmp_path / "enhancements", 50 * 1024 * 1024)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "sigtracker.settings.test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(repo.root)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    first, *rest = done.stdout.splitlines()
    code, _, peak_mb = (int(word) for word in first.split())
    errors = "\n".join(rest)
    assert code == 1  # the bomb is skipped, named; the good kep.yaml imported
    assert f"{BIG}@" in errors and "over the 5242880-byte limit" in errors
    assert peak_mb < 300, f"peak {peak_mb} MB"
