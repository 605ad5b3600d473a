"""The shell of an import command: arguments, progress bar, the printed report, the exit status.

A command built on `ImportCommand` parses its arguments and calls its app's one import service, which finds the
files, applies the rules and owns the transaction and the lock. Exit status: 0 when every file imported, 1 when
some were skipped (or the database refused the run), 2 on usage errors (`ImportUsageError`).
"""

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from .results import ImportReport, ImportUsageError


class ImportCommand(BaseCommand):
    """Subclasses add their arguments and implement `run_import`, one call to their service."""

    #: Word for one unit of input in messages ("file").
    unit = "file"

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Report what would change; write nothing.")

    def run_import(self, options, *, dry_run: bool) -> ImportReport:
        """Call the import service with the parsed options (and `progress=self.progress`); its report."""
        raise NotImplementedError

    def handle(self, *args, **options):
        dry_run = options["dry_run"]
        try:
            report = self.run_import(options, dry_run=dry_run)
        except ImportUsageError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        if report.refused:
            raise CommandError(report.refused, returncode=1)
        self.print_report(report, dry_run=dry_run)
        if report.skipped:
            raise CommandError(f"{len(report.skipped)} {self.unit}(s) skipped", returncode=1)

    def progress(self, files: Sequence[Path]) -> Iterable[Path]:
        """`files` behind a progress bar on stderr when stdout is a terminal; as they are otherwise."""
        stream = getattr(self.stdout, "_out", sys.stdout)
        if not (hasattr(stream, "isatty") and stream.isatty()):
            return files
        from tqdm import tqdm

        return tqdm(list(files), unit=self.unit, desc="importing", file=sys.stderr, leave=False)

    def print_report(self, report: ImportReport, *, dry_run: bool) -> None:
        verbosity = self.verbosity
        for level, note in report.notes:
            if verbosity >= level:
                self.stdout.write(note)
        if verbosity >= 1:
            for warning in report.warnings:
                self.stdout.write(f"warning: {warning}")
        for failure in report.skipped:
            self.stderr.write(f"skipped: {failure}")
        if verbosity >= 1:
            prefix = "dry run: " if dry_run else ""
            self.stdout.write(prefix + report.summary(dry_run=dry_run))

    def execute(self, *args, **options):
        self.verbosity = options.get("verbosity", 1)
        return super().execute(*args, **options)
