"""What every benchmark module shares: the Figure record, timers, and memory measurement.

A benchmark module is `bench/bench_<topic>.py` with a `run() -> list[Figure]`. Each figure is measured
in the same run as its floor (the cheapest way to do the same work), so the ratio holds on a noisy machine.
"""

import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    floor: float | None = None
    budget: float | None = None  # absolute ceiling for `value`, in `unit`
    max_ratio: float | None = None  # ceiling for value / floor
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.floor in (None, 0):
            return None
        return self.value / self.floor

    @property
    def ok(self) -> bool:
        within_budget = self.budget is None or self.value <= self.budget
        within_ratio = self.max_ratio is None or self.ratio is None or self.ratio <= self.max_ratio
        return within_budget and within_ratio

    def as_dict(self) -> dict:
        data = asdict(self)
        data.update(ratio=self.ratio, ok=self.ok)
        return data


def wall_time(func: Callable[[], object]) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def median_time(func: Callable[[], object], repeat: int = 15, warmup: int = 2) -> float:
    for _ in range(warmup):
        func()
    return statistics.median(wall_time(func) for _ in range(repeat))


def peak_memory_mb(func: Callable[[], object]) -> tuple[float, float]:
    """Run `func` once under tracemalloc: (seconds, peak MB of Python allocations)."""
    tracemalloc.start()
    try:
        seconds = wall_time(func)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return seconds, peak / 1e6


class scratch_database:
    """A freshly created (and afterwards dropped) database beside DATABASE_URL's, like the test runner's."""

    def __enter__(self):
        from django.test.utils import setup_databases

        self._old = setup_databases(verbosity=0, interactive=False, keepdb=False, aliases={"default"})
        return self

    def __exit__(self, *exc):
        from django.test.utils import teardown_databases

        teardown_databases(self._old, verbosity=0)
        return False
