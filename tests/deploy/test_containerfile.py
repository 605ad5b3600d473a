"""The Containerfile: hadolint finds nothing, and the final stage is what the manifests assume (no container
runtime runs on these machines, so the image itself is never built here; docs/operations.md, "Deploying on
Kubernetes", says so)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import require_service
from tests.deploy import dockerignore

ROOT = Path(__file__).resolve().parents[2]
CONTAINERFILE = ROOT / "Containerfile"


def hadolint(path: Path) -> subprocess.CompletedProcess:
    binary = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    if not binary:
        require_service(False, "hadolint is not installed (make install brings it with the dev extras)")
    return subprocess.run([binary, str(path)], capture_output=True, text=True, timeout=60)


def test_hadolint_passes():
    done = hadolint(CONTAINERFILE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_hadolint_would_catch_a_mistake(tmp_path):
    bad = tmp_path / "Containerfile"
    bad.write_text("FROM python\nRUN apt-get install gcc\nCMD python manage.py\n")
    assert hadolint(bad).returncode != 0


def final_stage() -> str:
    return re.split(r"^FROM ", CONTAINERFILE.read_text(), flags=re.M)[-1]


def test_the_final_stage_runs_as_a_numeric_non_root_user_without_build_tools():
    stage = final_stage()
    user = re.findall(r"^USER (\S+)", stage, flags=re.M)
    assert user and user[-1].split(":")[0].isdigit() and user[-1].split(":")[0] != "0"
    # The manifests' runAsUser is the image's user.
    web = (ROOT / "deploy" / "base" / "web.yaml").read_text()
    assert f"runAsUser: {user[-1].split(':')[0]}" in web
    assert not re.search(r"apt-get|apk |gcc|build-essential|pip install", stage)
    assert 'ENTRYPOINT ["/app/deploy/entrypoint.sh"]' in stage


def test_static_files_are_collected_at_build_time_with_production_settings():
    text = CONTAINERFILE.read_text()
    assert re.search(r"DEBUG=false .*\n.*\n\s+python manage.py collectstatic --noinput", text)


def test_the_build_context_keeps_out_what_the_image_does_not_need():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "tests", "db.sqlite3"} <= set(ignored)
    # What the image runs must not be ignored.
    assert not {"deploy", "deploy/entrypoint.sh", "sigtracker", "core", "manage.py"} & set(ignored)


SECRET_FILES = (".env", "secrets.env", "deploy/secrets.env", "deploy/overlays/small/secrets.env", "x/y/z.env")
CODE_FILES = ("manage.py", "deploy/entrypoint.sh", "deploy/gunicorn.conf.py", "requirements.lock", "core/views.py")


def test_the_build_context_keeps_env_files_out_wherever_they_are():
    # Operators fill in a secrets.env (docs/operations.md), perhaps in the checkout: `COPY . .` must never take it
    # into the image.
    rules = dockerignore.load(ROOT)
    for path in SECRET_FILES:
        assert dockerignore.is_excluded(rules, path), path
    for path in CODE_FILES:
        assert not dockerignore.is_excluded(rules, path), path
    on_disk = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.env") if ".venv" not in p.parts]
    assert all(dockerignore.is_excluded(rules, path) for path in on_disk), on_disk


def test_the_dockerignore_matcher_follows_the_builders_rules():
    rules = dockerignore.parse("# c\ntests\n*.pyc\n!keep.pyc\ndocs/**/*.md\n/bench\n")
    assert dockerignore.is_excluded(rules, "tests/core/test_x.py")  # a parent directory is enough
    assert dockerignore.is_excluded(rules, "a.pyc") and not dockerignore.is_excluded(rules, "core/a.pyc")
    assert not dockerignore.is_excluded(rules, "keep.pyc")  # the last match decides
    assert dockerignore.is_excluded(rules, "docs/a.md") and dockerignore.is_excluded(rules, "docs/x/y/a.md")
    assert dockerignore.is_excluded(rules, "bench/core.py") and not dockerignore.is_excluded(rules, "testsuite")
    # Without a `**/` pattern, secrets.env in a sub-directory would go into the image.
    assert not dockerignore.is_excluded(dockerignore.parse("*.env"), "deploy/secrets.env")
