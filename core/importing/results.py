"""What an import reports: a failure that skips one input, a usage error, and the report of a whole run."""

from dataclasses import dataclass, field


class ImportUsageError(Exception):
    """The run cannot start: a path that does not exist, a folder with nothing to import, a bad option.

    Raised by a service before it reads or writes anything; commands turn it into exit status 2.
    """


class ImportFailure(Exception):
    """Input that cannot be imported. Says where (file, line or field) and why, in one line."""

    def __init__(self, reason: str, *, source: str = "", line: int | None = None, field: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.source = source
        self.line = line
        self.field = field

    def located(self, source: str) -> "ImportFailure":
        """The same failure, attributed to `source` unless it already names one."""
        if not self.source:
            self.source = source
        return self

    def __str__(self) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f": {self.field}"
        return f"{where}: {self.reason}"


@dataclass
class ImportReport:
    """Counts of what an import did (or, in a dry run, would do), with every skip and warning.

    `refused` is set when the database refused a run written in one transaction: then nothing was written, and
    it says why in one line. `notes` are details for a reader who asked for them: (least verbosity, line).
    """

    files_read: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: list[ImportFailure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)
    refused: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)

    def count(self, outcome: str, n: int = 1) -> None:
        """Add to `created`, `updated` or `unchanged`."""
        setattr(self, outcome, getattr(self, outcome) + n)

    def skip(self, failure: ImportFailure) -> None:
        self.skipped.append(failure)

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def note(self, message: str, *, verbosity: int = 2) -> None:
        """A detail shown from `verbosity` on (1: always, 2: with -v 2)."""
        self.notes.append((verbosity, message))

    def summary(self, *, dry_run: bool = False) -> str:
        verb = "would be " if dry_run else ""
        line = (
            f"{self.files_read} files read: {self.created} {verb}created, {self.updated} {verb}updated, "
            f"{self.unchanged} unchanged, {len(self.skipped)} skipped"
        )
        if not self.changed and not self.skipped:
            line += " — nothing to change"
        return line
