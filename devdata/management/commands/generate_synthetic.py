"""`manage.py generate_synthetic --scale N [--seed S]`: deterministic synthetic data for benchmarks."""

import sys

from django.core.management.base import BaseCommand, CommandError

from devdata.synthetic import PHASES, SyntheticDataError, synthetic_data_generate


def _positive_scale(value: str) -> float:
    try:
        scale = float(value)
    except ValueError:
        scale = 0.0
    if not scale > 0:
        raise CommandError(f"--scale: must be a number greater than 0, not {value!r}", returncode=2)
    return scale


class Command(BaseCommand):
    help = (
        "Fill an EMPTY database with deterministic synthetic data for benchmarks. Scale 1 resembles SIG Node's "
        "history (~130 KEPs, releases 1.20-1.35 with full schedules, 500 meetings, 3,000 agenda items, 400 "
        "tracked enhancements with status history, ~50 retro items); scale N has N times as much over up to "
        "10 SIGs (releases stay 16). The same scale and seed give the same rows. Release states (1.20-1.33 "
        "released, 1.34 active, 1.35 planning) and the active release's board are set relative to a fixed "
        "reference instant derived from the seed inside the 1.34 cycle, not today's date. Refuses (exit "
        "status 2) when the database already holds KEPs, releases or meetings."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--scale",
            default="1",
            help="Size multiplier, a number > 0 (e.g. 0.1 for a quick sample, 10 for benchmarks; default 1).",
        )
        parser.add_argument("--seed", type=int, default=1, help="Random seed (default 1).")
        parser.add_argument(
            "--dry-run", action="store_true", help="Generate and count everything, then roll back: write nothing."
        )

    def handle(self, *args, scale, seed, dry_run, verbosity, **options):
        scale = _positive_scale(scale)
        bar = None
        stream = getattr(self.stdout, "_out", sys.stdout)
        if verbosity >= 1 and hasattr(stream, "isatty") and stream.isatty():
            from tqdm import tqdm

            bar = tqdm(total=len(PHASES), unit="phase", desc="generating", file=sys.stderr, leave=False)

        def progress(phase: str) -> None:
            if bar is not None:
                bar.set_postfix_str(f"{phase} done", refresh=False)
                bar.update(1)

        try:
            result = synthetic_data_generate(scale=scale, seed=seed, dry_run=dry_run, progress=progress)
        except SyntheticDataError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        finally:
            if bar is not None:
                bar.close()
        if verbosity >= 1:
            prefix = "Dry run (nothing written): " if dry_run else ""
            sigs = ", ".join(result["sigs"])
            self.stdout.write(
                f"{prefix}Synthetic data, scale {result['scale']:g}, seed {result['seed']}, SIGs: {sigs}; "
                f"reference instant {result['reference']:%Y-%m-%d %H:%M} UTC."
            )
            for label, count in result["counts"].items():
                self.stdout.write(f"  {label:<40} {count:>8,}")
