"""Every third-party package the code imports is declared in pyproject.toml with a tested range, and the locks
pin a version of each inside that range.

Imports are found mechanically: every `import x` and `from x import ...` (at any depth, lazy ones included) in
the project's packages, plus the apps and middleware settings name as strings, mapped to the distribution that
installs each top-level module.
"""

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest
from django.conf import settings
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# The project's own packages, as setuptools is told to find them ("keps*" -> keps).
APP_PACKAGES = [p.rstrip("*") for p in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]] + ["manage.py"]
TOOLING_PACKAGES = ["tests", "bench"]
FIRST_PARTY = {p for p in APP_PACKAGES if p != "manage.py"} | set(TOOLING_PACKAGES)
RUNTIME = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
DEV = [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["dev"]]


def top_level_imports(paths: list[Path]) -> dict[str, set[str]]:
    """Top-level module name -> the files (relative to ROOT) importing it, stdlib and relative imports left out."""
    found: dict[str, set[str]] = {}
    for base in paths:
        for path in [base] if base.is_file() else sorted(base.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.partition(".")[0]
                    if top not in sys.stdlib_module_names:
                        found.setdefault(top, set()).add(str(path.relative_to(base.parent)))
    return found


def undeclared(imports: dict[str, set[str]], declared: set[str]) -> dict[str, str]:
    """Imported modules whose distribution is not among `declared` (canonical names): module -> why."""
    providers = importlib.metadata.packages_distributions()
    missing = {}
    for module, files in sorted(imports.items()):
        if module in FIRST_PARTY:
            continue
        dists = {canonicalize_name(d) for d in providers.get(module, [])}
        if not dists:
            missing[module] = f"not installed at all (imported by {sorted(files)[0]})"
        elif not dists & declared:
            missing[module] = f"installed by {sorted(dists)} but not declared (imported by {sorted(files)[0]})"
    return missing


def _declared(requirements: list[Requirement]) -> set[str]:
    return {canonicalize_name(r.name) for r in requirements}


def _settings_modules() -> dict[str, set[str]]:
    """Packages that settings load by dotted name (apps, middleware): imported too, just not by an import line."""
    names = [*settings.INSTALLED_APPS, *settings.MIDDLEWARE]
    return {name.partition(".")[0]: {"settings"} for name in names if name.partition(".")[0] not in FIRST_PARTY}


def _locked(name: str) -> dict[str, str]:
    text = (ROOT / name).read_text()
    return {canonicalize_name(m[1]): m[2] for m in re.finditer(r"^([A-Za-z0-9_.\-]+)==(\S+)", text, re.M)}


def test_the_application_declares_every_package_it_imports():
    imports = top_level_imports([ROOT / p for p in APP_PACKAGES]) | _settings_modules()
    assert undeclared(imports, _declared(RUNTIME)) == {}


def test_tests_and_benchmarks_declare_every_package_they_import_in_the_dev_extra():
    imports = top_level_imports([ROOT / p for p in TOOLING_PACKAGES])
    assert undeclared(imports, _declared(RUNTIME + DEV)) == {}


def test_the_checker_sees_an_undeclared_import(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "mod.py").write_text("import os\nfrom . import sibling\n\ndef f():\n    from yaml import safe_load\n")
    imports = top_level_imports([package])
    assert set(imports) == {"yaml"}
    assert "pyyaml" in undeclared(imports, declared=set())["yaml"]
    assert undeclared(imports, declared={"pyyaml"}) == {}
    assert "not installed" in undeclared({"no_such_module_here": {"x.py"}}, set())["no_such_module_here"]


@pytest.mark.parametrize("requirement", RUNTIME + DEV, ids=str)
def test_each_range_stays_within_one_major_version(requirement):
    """A lower bound and an upper bound no further than the next major (0.x and calendar versions: the next minor
    or year): the range is what was installed and tested, not whatever a future major brings."""
    lower = [s.version for s in requirement.specifier if s.operator in (">=", "==", "~=")]
    upper = [s.version for s in requirement.specifier if s.operator in ("<", "==", "~=")]
    assert lower and upper, f"{requirement} needs both a lower and an upper bound"
    low, high = ((*(int(x) for x in v.split(".")[:2]), 0)[:2] for v in (lower[0], upper[0]))
    if low[0] == 0:  # 0.x: each minor may break
        assert high <= (0, low[1] + 1), requirement
    else:  # a major, or a calendar version's year
        assert high <= (low[0] + 1, 0), requirement


@pytest.mark.parametrize(
    "lock,requirements",
    [("requirements.lock", RUNTIME), ("requirements-dev.lock", RUNTIME + DEV)],
)
def test_the_locks_pin_every_declared_package_inside_its_range(lock, requirements):
    """Fails when pyproject.toml changed and `make lock` was not run."""
    locked = _locked(lock)
    for requirement in requirements:
        version = locked.get(canonicalize_name(requirement.name))
        assert version, f"{requirement.name} is declared but not in {lock}: run `make lock`"
        inside = requirement.specifier.contains(version, prereleases=True)
        assert inside, f"{lock} pins {version}, outside {requirement}"


def test_the_dev_lock_agrees_with_the_runtime_lock():
    runtime, dev = _locked("requirements.lock"), _locked("requirements-dev.lock")
    assert {name: dev.get(name) for name in runtime} == runtime
