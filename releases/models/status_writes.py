"""The guard on a tracked enhancement's status: only `releases.services.tracking`, which writes the history row
with each change, may write it. The models and querysets of `tracking` call `refuse_status_write()` on every
path that would write a status; the service opens `status_writer()` around its own writes."""

import contextlib
import contextvars


class StatusWriteRefused(Exception):
    """A tracked enhancement's stored status was changed outside `releases.services.tracking`, the one write
    path that keeps its history (and queues its stats). Admin forms, imports, syncs and the shell call it."""


#: Set while `releases.services.tracking` writes statuses; see `status_writer()`.
_STATUS_WRITER = contextvars.ContextVar("tracked_enhancement_status_writer", default=False)


@contextlib.contextmanager
def status_writer():
    """Allow status writes in this block. Only `releases.services.tracking` enters it."""
    token = _STATUS_WRITER.set(True)
    try:
        yield
    finally:
        _STATUS_WRITER.reset(token)


def refuse_status_write(what: str) -> None:
    """Raise `StatusWriteRefused`, naming `what` was tried, unless inside `status_writer()`."""
    if not _STATUS_WRITER.get():
        raise StatusWriteRefused(
            f"{what}: a tracked enhancement's status changes only through releases.services.tracking, "
            "which keeps its history"
        )
