"""Deterministic synthetic data for benchmarks: `synthetic_data_generate(scale=, seed=)`.

At scale 1 the data resembles SIG Node's history: ~130 KEPs, releases 1.20–1.35 with their full freeze
schedules, 500 weekly meetings with PR-flow figures and 3,000 agenda items, 400 tracked enhancements with
status histories spread over each cycle, and ~50 retro items. At scale N every count except the releases
(which are global) is N times larger, spread over up to ten SIGs.

Everything is drawn from `random.Random` streams seeded by strings derived from the seed, so the same
scale and seed always give the same rows (up to primary keys). Nothing depends on today's date: release
states and the status of the active release's board are set relative to `reference_instant(seed)`, a
fixed instant inside the 1.34 cycle, after its enhancements freeze and before its code freeze.

All rows are written with `bulk_create` in batches inside one transaction; `save()` is never called, so
fields that `save()` would fill (`Release.major`/`minor`) are set here.
"""

from .calendar import reference_instant
from .generator import PHASES, synthetic_data_generate
from .plans import SyntheticDataError

__all__ = ["PHASES", "SyntheticDataError", "reference_instant", "synthetic_data_generate"]
