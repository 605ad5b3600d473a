"""What the upstream importers share, split by concern.

- `results`: `ImportFailure` (one input skipped, naming where and why), `ImportUsageError`, `ImportReport`.
- `files`: `read_text`, which reads only regular files up to `MAX_FILE_BYTES`, never through a link out of the
  folder an import was given (`resolve_inside`).
- `runs`: `import_lock`, and the runners that own the transaction, the lock and the dry-run rollback
  (`import_file_by_file`, `import_in_one_transaction` with `parsed_in_chunks`).
- `commands`: `ImportCommand`, the thin shell of an import command (arguments, progress, report, exit status).

Each importer is a pure parser (text -> plain data, raising `ImportFailure`) plus a service in its app that finds
the files, applies its rules and writes through one of the runners; its command only calls that service.
"""

from .commands import ImportCommand
from .files import MAX_FILE_BYTES, read_text, resolve_inside
from .results import ImportFailure, ImportReport, ImportUsageError
from .runs import (
    Progress,
    import_file_by_file,
    import_in_one_transaction,
    import_lock,
    no_progress,
    objects_so_far_left_to_refcounting,
    parsed_in_chunks,
)

__all__ = [
    "MAX_FILE_BYTES",
    "ImportCommand",
    "ImportFailure",
    "ImportReport",
    "ImportUsageError",
    "Progress",
    "import_file_by_file",
    "import_in_one_transaction",
    "import_lock",
    "no_progress",
    "objects_so_far_left_to_refcounting",
    "parsed_in_chunks",
    "read_text",
    "resolve_inside",
]
