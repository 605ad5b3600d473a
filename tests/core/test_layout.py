"""The direction of imports (docs/architecture.md): domain apps import core, never back; nothing imports the
config package but the entry points; demo data is imported by nothing that runs in production."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = "core"
DOMAIN = ("keps", "releases", "meetings", "reminders", "api", "people")
DEVDATA = "devdata"
CONFIG = "sigtracker"


def _imported_packages(path: Path) -> set[str]:
    """Top-level packages a module imports (absolute imports; relative ones stay inside the package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _modules(package: str):
    return sorted((ROOT / package).rglob("*.py"))


def _violations(package: str, forbidden: set[str]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _modules(package)
        for name in sorted(_imported_packages(path) & forbidden)
    ]


def test_core_imports_no_domain_app_nor_the_config_package():
    assert _violations(CORE, {*DOMAIN, DEVDATA, CONFIG}) == []


@pytest.mark.parametrize("package", DOMAIN)
def test_domain_apps_import_neither_the_config_package_nor_demo_data(package):
    assert _violations(package, {CONFIG, DEVDATA}) == []


def test_demo_data_does_not_import_the_config_package():
    assert _violations(DEVDATA, {CONFIG}) == []


def test_the_config_package_holds_configuration_only():
    modules = {path.relative_to(ROOT / CONFIG).as_posix() for path in _modules(CONFIG)}
    settings = {m for m in modules if m.startswith("settings/")}
    assert modules - settings == {"__init__.py", "asgi.py", "celery.py", "urls.py", "wsgi.py"}


def test_the_checker_sees_imports(tmp_path):
    """The walk would catch an offending import (guards against a check that cannot fail)."""
    module = tmp_path / "m.py"
    module.write_text("import releases.models\nfrom keps.roles import x\nfrom .models import y\n", encoding="utf-8")
    assert _imported_packages(module) == {"releases", "keps"}


def test_demo_data_is_not_installed_in_production():
    """Production settings start from base and add nothing; only dev, test and bench settings add devdata."""
    settings_dir = ROOT / CONFIG / "settings"
    assert DEVDATA not in (settings_dir / "base.py").read_text(encoding="utf-8")
    assert DEVDATA not in (settings_dir / "prod.py").read_text(encoding="utf-8")
    for name in ("dev.py", "test.py", "bench.py"):
        assert f'"{DEVDATA}"' in (settings_dir / name).read_text(encoding="utf-8"), name


def test_test_modules_share_helpers_through_helper_modules_not_each_other():
    """Fixtures live in conftest.py and shared builders in plain modules (tests/worlds.py, tests/reminder_board.py,
    tests/concurrency.py…): a test module importing another test module runs the other's tests' setup too."""
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tests."):
                if node.module.rsplit(".", 1)[-1].startswith("test_"):
                    offenders.append(f"{path.relative_to(ROOT)} imports {node.module}")
    assert offenders == []
