"""Running an import: the transaction, the lock that serialises concurrent runs, the dry-run rollback.

Two shapes, chosen by each import's service:

- `import_file_by_file`: one transaction per file, so a file that fails leaves the database as it was for that
  file and the others still import (schedules, meeting notes, sigs.yaml).
- `import_in_one_transaction`: the whole run in one transaction, for sources whose rows refer to each other
  across files and that bulk writes keep fast (kep.yaml and PRR files); `parsed_in_chunks` parses its files so
  that a file that fails is skipped alone and contributes nothing.

Both hold `import_lock(lock_name)` inside their transaction, roll back in a dry run, and keep the cyclic garbage
collector off the objects that existed before the run.
"""

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.db import DatabaseError, transaction

from core.db.locks import lock_key, transaction_lock

from .results import ImportFailure, ImportReport

#: Wraps the files of a run to show progress (a command's progress bar); `no_progress` shows none.
Progress = Callable[[Sequence[Path]], Iterable[Path]]


def no_progress(files: Sequence[Path]) -> Iterable[Path]:
    return files


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
    transaction_lock(lock_key(name))
    yield


def import_file_by_file(
    *,
    files: Sequence[Path],
    import_file: Callable[[Path, ImportReport], None],
    lock_name: str,
    dry_run: bool,
    report: ImportReport,
    progress: Progress = no_progress,
) -> ImportReport:
    """Call `import_file(path, report)` for each file, each in its own transaction holding `import_lock`.

    `import_file` parses and writes one file, counting into `report`, and raises ImportFailure to skip it whole:
    then its transaction rolls back and what it had counted, warned or noted is taken out of `report` again. In
    a dry run every transaction rolls back, and `report` says what would have changed.
    """
    with objects_so_far_left_to_refcounting():
        for path in progress(files):
            before = (report.created, report.updated, report.unchanged, len(report.warnings), len(report.notes))
            try:
                with transaction.atomic():
                    with import_lock(lock_name):
                        import_file(path, report)
                    if dry_run:
                        transaction.set_rollback(True)
            except ImportFailure as failure:
                report.created, report.updated, report.unchanged = before[:3]
                del report.warnings[before[3] :]
                del report.notes[before[4] :]
                report.skip(failure.located(str(path)))
            report.files_read += 1
    return report


def import_in_one_transaction(
    *, lock_name: str, dry_run: bool, report: ImportReport, write: Callable[[], Any]
) -> ImportReport:
    """Run `write()` in one transaction holding `import_lock(lock_name)`, rolled back in a dry run.

    A database refusal (Django's DatabaseError, from any statement of the run) rolls everything back and is
    reported in one line as `report.refused`: records are validated while parsing, so this is unexpected, but it
    is still no traceback, and nothing is written.
    """
    try:
        with objects_so_far_left_to_refcounting(), transaction.atomic():
            with import_lock(lock_name):
                write()
            if dry_run:
                transaction.set_rollback(True)
    except DatabaseError as exc:
        reason = " ".join(str(exc).split())
        report.refused = f"the database refused the import, nothing was written: {reason}"
    return report


def parsed_in_chunks(
    *,
    files: Sequence[Path],
    parse_file: Callable[[Path, ImportReport], Any],
    report: ImportReport,
    progress: Progress = no_progress,
    chunk_size: int = 64,
) -> Iterator[list]:
    """The records `parse_file(path, report)` makes of `files`, in chunks of `chunk_size` as they are ready.

    A file whose parse raises ImportFailure is skipped alone, with its reason, and the warnings it had added are
    taken back. Only parsed records are kept, never the files' text, so a writer can send one chunk to the
    database while the next is parsed.
    """
    chunk = []
    for path in progress(files):
        warnings_before = len(report.warnings)
        try:
            chunk.append(parse_file(path, report))
        except ImportFailure as failure:
            del report.warnings[warnings_before:]
            report.skip(failure.located(str(path)))
        report.files_read += 1
        if len(chunk) >= chunk_size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
