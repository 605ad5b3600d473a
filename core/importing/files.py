"""Reading upstream files safely: only regular files, never more than `MAX_FILE_BYTES`, UTF-8 text."""

import os
import stat
from pathlib import Path

from .results import ImportFailure

#: Larger files are refused unread: no upstream file of these formats comes near it.
MAX_FILE_BYTES = 5 * 1024 * 1024

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
