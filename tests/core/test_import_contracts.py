"""The direction of imports (docs/architecture.md), checked by import-linter from pyproject.toml's contracts:
apps import only the apps below them, with no exception (what an upper app shows on a lower app's page comes
through core/panels.py), no circle among an app's modules, and the config package holds configuration only."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_the_import_contracts_hold():
    result = _lint_imports()
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_the_layers_have_no_exceptions():
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert all(not contract.get("ignore_imports") for contract in contracts)


def test_the_checker_sees_an_import_against_the_layers(tmp_path):
    """A contract that puts keps above releases is broken by the real code (releases' models point at KEPs):
    the check cannot pass by seeing nothing."""
    config = tmp_path / ".importlinter"
    config.write_text(
        "[importlinter]\nroot_packages =\n    keps\n    releases\n\n"
        "[importlinter:contract:upside-down]\nname = upside down\ntype = layers\nlayers =\n    keps\n    releases\n"
    )
    result = _lint_imports(str(config))
    assert result.returncode == 1, result.stdout
    assert "releases is not allowed to import keps" in result.stdout


def test_the_config_package_holds_configuration_only():
    modules = {path.relative_to(ROOT / "sigtracker").as_posix() for path in (ROOT / "sigtracker").rglob("*.py")}
    settings = {m for m in modules if m.startswith("settings/")}
    assert modules - settings == {"__init__.py", "asgi.py", "celery.py", "urls.py", "wsgi.py"}


def test_demo_data_is_not_installed_in_production():
    """Production settings start from base and add nothing; only dev, test and bench settings add devdata."""
    settings_dir = ROOT / "sigtracker" / "settings"
    assert "devdata" not in (settings_dir / "base.py").read_text(encoding="utf-8")
    assert "devdata" not in (settings_dir / "prod.py").read_text(encoding="utf-8")
