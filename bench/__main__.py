"""Run every bench/bench_*.py, print a table, write bench/results.json.

Runs on the database DATABASE_URL names (PostgreSQL for the budgets that say so); each module sets up
and tears down its own data in a scratch database so it never touches real data.
"""

import importlib
import json
import os
import pkgutil
import sys
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sigtracker.settings.bench")

import django  # noqa: E402

django.setup()

from bench.core import Figure  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results.json"


def _fmt(value):
    if value is None:
        return "-"
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def main(selected: list[str]) -> int:
    figures: list[Figure] = []
    package_dir = Path(__file__).resolve().parent
    modules = sorted(m.name for m in pkgutil.iter_modules([str(package_dir)]) if m.name.startswith("bench_"))
    if selected:
        modules = [m for m in modules if any(s in m for s in selected)]
    if not modules:
        print("no benchmarks yet")
    for name in modules:
        module = importlib.import_module(f"bench.{name}")
        print(f"== {name}", flush=True)
        figures.extend(module.run())
    header = f"{'figure':<58} {'value':>10} {'unit':<6} {'floor':>10} {'ratio':>7} {'budget':>8}  ok"
    print(header)
    print("-" * len(header))
    for f in figures:
        print(
            f"{f.name:<58} {_fmt(f.value):>10} {f.unit:<6} {_fmt(f.floor):>10} {_fmt(f.ratio):>7} "
            f"{_fmt(f.budget):>8}  {'yes' if f.ok else 'NO'}" + (f"  ({f.note})" if f.note else "")
        )
    results = [f.as_dict() for f in figures]
    if selected and RESULTS.exists():
        # A partial run (`python -m bench keps`) updates its own figures and keeps the others'.
        fresh = {r["name"] for r in results}
        try:
            kept = [r for r in json.loads(RESULTS.read_text()) if r.get("name") not in fresh]
        except (ValueError, TypeError):
            kept = []
        results = kept + results
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS} ({len(results)} figures)")
    return 0 if all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
