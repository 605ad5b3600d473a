"""The reminders app's place in the layering (docs/architecture.md): it imports the apps below it (core, community,
keps, releases, meetings) and none above it (people, api, devdata, the config package); none below it imports it."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BELOW = ("core", "community", "keps", "releases", "meetings")
ABOVE = ("people", "api", "devdata", "sigtracker")


def _imports(path: Path) -> set[str]:
    """Top-level packages a module imports, wherever in the module (a function's own import counts too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _offenders(package: str, forbidden: set[str]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for name in sorted(_imports(path) & forbidden)
    ]


@pytest.mark.parametrize("package", BELOW)
def test_no_app_below_reminders_imports_it(package):
    assert _offenders(package, {"reminders"}) == []


def test_reminders_imports_no_app_above_it():
    assert _offenders("reminders", set(ABOVE)) == []
