"""What the three upstream importers share: their error, their report, reading files safely,
the per-file transaction, and the management-command shell (dry run, progress, summary, exit status).

Each importer is a pure parser (text -> plain data, raising `ImportFailure`) plus a service that writes
that data; the command below only finds files, calls both per file, and reports.
"""

import gc
import hashlib
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

#: Larger files are refused unread: no upstream file of these formats comes near it.
MAX_FILE_BYTES = 5 * 1024 * 1024


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
    """Counts of what an import did (or, in a dry run, would do), with every skip and warning."""

    files_read: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: list[ImportFailure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

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

    def summary(self, *, dry_run: bool = False) -> str:
        verb = "would be " if dry_run else ""
        line = (
            f"{self.files_read} files read: {self.created} {verb}created, {self.updated} {verb}updated, "
            f"{self.unchanged} unchanged, {len(self.skipped)} skipped"
        )
        if not self.changed and not self.skipped:
            line += " — nothing to change"
        return line


#: What `read_text` calls each kind of file it refuses to open, by `stat.S_IFMT`.
_NOT_REGULAR = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


def _refuse_unless_regular(mode: int, source: str) -> None:
    if not stat.S_ISREG(mode):
        kind = _NOT_REGULAR.get(stat.S_IFMT(mode), "an unknown kind")
        raise ImportFailure(f"not a regular file ({kind}); not read", source=source)


def read_text(path: Path, *, max_bytes: int = MAX_FILE_BYTES) -> str:
    """A file's text, or an ImportFailure naming it: not a regular file, too large, binary, not UTF-8, unreadable.

    Only regular files are read, and never more than `max_bytes` + 1 bytes of them (issue 17 K): a `kep.yaml`
    symlinked to /dev/zero reports a size of 0 and never ends, and opening a FIFO waits for a writer that may
    never come. So the target is stat'ed (through symlinks) and refused unless regular; it is opened with
    O_NONBLOCK, so that a FIFO swapped in after the stat cannot block the open, and the open descriptor is
    checked again; and the read is bounded whatever `st_size` says (files in /proc report 0).
    """
    source = str(path)
    try:
        _refuse_unless_regular(os.stat(path).st_mode, source)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
        with open(os.open(path, flags), "rb", closefd=True) as handle:
            info = os.fstat(handle.fileno())
            _refuse_unless_regular(info.st_mode, source)
            if info.st_size > max_bytes:
                raise ImportFailure(
                    f"file too large ({info.st_size:,} bytes; the limit is {max_bytes:,})", source=source
                )
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise ImportFailure(f"cannot read file ({exc.strerror or exc})", source=source) from exc
    if len(data) > max_bytes:
        raise ImportFailure(f"file too large (over {max_bytes:,} bytes, the limit)", source=source)
    if b"\x00" in data:
        raise ImportFailure("binary file (contains NUL bytes)", source=source)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ImportFailure(f"not valid UTF-8 (byte {exc.start})", source=source, line=line) from exc


@contextmanager
def objects_so_far_left_to_refcounting() -> Iterator[None]:
    """Keep the cyclic garbage collector off the objects that exist before an import (`gc.freeze`).

    An import allocates enough (parse trees, records) to set off full collections, and each one walked the
    whole Django process too: ~50 ms a time, a quarter of a full-tree KEP import. The objects an import creates
    are still collected as usual.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextmanager
def import_lock(name: str) -> Iterator[None]:
    """Serialise concurrent imports of the same source kind inside the current transaction.

    On PostgreSQL a transaction-scoped advisory lock; SQLite already serialises writers.
    """
    if connection.vendor == "postgresql":
        key = int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
    yield


class BaseImportCommand(BaseCommand):
    """Shell of an import command: subclasses say which files to read and how to import one.

    Exit status: 0 when every file imported, 1 when some were skipped, 2 on usage errors.
    """

    #: Name of the advisory lock that serialises concurrent runs (per source kind).
    lock_name = "sigtracker-import"
    #: Word for one unit of input in messages ("file", "kep.yaml").
    unit = "file"

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Report what would change; write nothing.")

    # -- to be provided by subclasses -------------------------------------------------------------
    def collect_files(self, options) -> list[Path]:
        raise NotImplementedError

    def import_file(self, path: Path, report: ImportReport, options) -> None:
        """Parse and write one file, counting into `report`; raise ImportFailure to skip it whole."""
        raise NotImplementedError

    def before_import(self, files: list[Path], report: ImportReport, options) -> None:
        """Hook for work over all files at once (e.g. reading them as a set); default: nothing."""

    # -- shared behaviour -------------------------------------------------------------------------
    def handle(self, *args, **options):
        dry_run = options["dry_run"]
        files = self.collect_files(options)
        if not files:
            raise CommandError(f"no {self.unit}s found to import", returncode=2)
        report = ImportReport()
        self.before_import(files, report, options)
        with objects_so_far_left_to_refcounting():
            self.run_import(files, report, options, dry_run=dry_run)
        self.finish(report, dry_run=dry_run)
        self.print_report(report, dry_run=dry_run)
        if report.skipped:
            raise CommandError(f"{len(report.skipped)} {self.unit}(s) skipped", returncode=1)

    def run_import(self, files: list[Path], report: ImportReport, options, *, dry_run: bool) -> None:
        """Every file in its own transaction (see import_one)."""
        for path in self.progress(files):
            self.import_one(path, report, options, dry_run=dry_run)

    def import_one(self, path: Path, report: ImportReport, options, *, dry_run: bool) -> None:
        """One file in its own transaction: a failure leaves the database as it was for that file."""
        before = (report.created, report.updated, report.unchanged, len(report.warnings))
        try:
            with transaction.atomic():
                with import_lock(self.lock_name):
                    self.import_file(path, report, options)
                if dry_run:
                    transaction.set_rollback(True)
        except ImportFailure as failure:
            report.created, report.updated, report.unchanged = before[:3]
            del report.warnings[before[3] :]
            report.skip(failure.located(str(path)))
        report.files_read += 1

    def finish(self, report: ImportReport, *, dry_run: bool) -> None:
        """Hook after all files (e.g. to queue stats); default: nothing."""

    def progress(self, files: Iterable[Path]):
        stream = getattr(self.stdout, "_out", sys.stdout)
        if not (hasattr(stream, "isatty") and stream.isatty()):
            return files
        from tqdm import tqdm

        return tqdm(list(files), unit=self.unit, desc="importing", file=sys.stderr, leave=False)

    def print_report(self, report: ImportReport, *, dry_run: bool) -> None:
        verbosity = self.verbosity
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


class BatchImportCommand(BaseImportCommand):
    """Import shell that writes all valid records of a run in one transaction.

    For sources whose rows refer to each other across files (a PRR file names a KEP from another file) and
    which are large enough that one transaction per file would be slow. Parsing never touches the database, so
    a file that fails to parse is skipped alone and contributes nothing; the records of the others are written
    in bulk in one transaction holding `import_lock(lock_name)` (rolled back in a dry run). Files are parsed in
    chunks of `chunk_size` and each chunk is handed to `write_stream` as it is ready, so a writer can send one
    chunk to the database while the next is parsed. Only parsed records are kept in memory, never the files'
    text.
    """

    #: Files parsed between two hand-overs to `write_stream`.
    chunk_size = 64

    def parse_file(self, path: Path, report: ImportReport, options):
        """A record for one file (its warnings added to `report`); raise ImportFailure to skip the file."""
        raise NotImplementedError

    def write_stream(self, chunks: Iterator[list], report: ImportReport, options) -> None:
        """Write the records of every chunk of parsed files as the chunks come, counting outcomes into `report`;
        runs inside the locked transaction."""
        raise NotImplementedError

    def parsed_chunks(self, files: list[Path], report: ImportReport, options) -> Iterator[list]:
        """The records of `files` in chunks of `chunk_size`; a file that fails is skipped alone, with its reason."""
        chunk = []
        for path in self.progress(files):
            warnings_before = len(report.warnings)
            try:
                chunk.append(self.parse_file(path, report, options))
            except ImportFailure as failure:
                del report.warnings[warnings_before:]
                report.skip(failure.located(str(path)))
            report.files_read += 1
            if len(chunk) >= self.chunk_size:
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    def run_import(self, files: list[Path], report: ImportReport, options, *, dry_run: bool) -> None:
        from django.db import DatabaseError

        try:
            with transaction.atomic():
                with import_lock(self.lock_name):
                    self.write_stream(self.parsed_chunks(files, report, options), report, options)
                if dry_run:
                    transaction.set_rollback(True)
        except DatabaseError as exc:
            # Records are validated while parsing, so this is unexpected; still one line, and nothing written.
            reason = " ".join(str(exc).split())
            raise CommandError(f"the database refused the import, nothing was written: {reason}", returncode=1) from exc
