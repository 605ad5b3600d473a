"""docs/configuration.md names every setting the code reads: each environment variable (Python settings, the
entrypoint, gunicorn's configuration, the tests' and benchmarks' own) and each `SIGTRACKER_*` Django setting."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "configuration.md"
SKIPPED_DIRS = {".venv", "migrations", "node_modules", "__pycache__", ".git"}
#: Read but not settings: the shell's own, xdist's worker id, the Containerfile's build argument, a local variable.
NOT_SETTINGS = {"PATH", "PYTEST_XDIST_WORKER", "PYTHON_IMAGE", "KNOWN_QUEUES", "HOME"}

PY_ENV = re.compile(
    r"""(?:os\.environ\.get\(|os\.environ\[|os\.getenv\(|env_bool\(|env_list\()\s*["']([A-Z][A-Z0-9_]+)["']"""
)
PY_SETTING = re.compile(r"""(?:settings\.|getattr\(settings,\s*["'])(SIGTRACKER_[A-Z0-9_]+)""")
SH_ENV = re.compile(r"\$\{?([A-Z][A-Z0-9_]+)")


def python_files():
    for path in ROOT.rglob("*.py"):
        if not SKIPPED_DIRS & set(path.relative_to(ROOT).parts):
            yield path


def names_read() -> set[str]:
    names = set()
    for path in python_files():
        text = path.read_text()
        names |= set(PY_ENV.findall(text))
        if "tests" not in path.relative_to(ROOT).parts:
            names |= set(PY_SETTING.findall(text))
    names |= set(SH_ENV.findall((ROOT / "deploy" / "entrypoint.sh").read_text()))
    return names - NOT_SETTINGS


def test_every_setting_the_code_reads_is_documented():
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", DOC.read_text()))
    missing = names_read() - documented
    assert not missing, f"read by the code but not in docs/configuration.md: {sorted(missing)}"


def test_the_scan_finds_what_it_must():
    # The scan itself: settings read in each way the code reads them.
    found = names_read()
    assert {"SECRET_KEY", "CONN_MAX_AGE", "SIGTRACKER_REQUIRE_LOGIN"} <= found
    assert {"EMAIL_TIMEOUT", "GUNICORN_TIMEOUT", "WORKER_CONCURRENCY", "SIGTRACKER_SLACK_MAX_RETRIES"} <= found
