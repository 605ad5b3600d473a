"""Reading upstream files safely: only regular files, never more than `MAX_FILE_BYTES`, UTF-8 text, and never
through a symbolic link out of the folder an import was given (`root`)."""

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


def _outside(real: str, root_real: str) -> bool:
    return real != root_real and not real.startswith(root_real.rstrip(os.sep) + os.sep)


def resolve_inside(path: Path, root: Path) -> str:
    """The real path of `path`, a file found inside the folder `root`; an ImportFailure naming `path` when a
    symbolic link (the file itself or a folder on the way) leads out of `root`. Links that stay inside are fine.

    An import folder is often a git checkout, and a repository can carry symlinks: a `kep.yaml` linked to
    `/etc/passwd` or to another checkout must not be read as upstream data (issue found by an adversarial pass).
    """
    real, root_real = os.path.realpath(path), os.path.realpath(root)
    if _outside(real, root_real):
        raise ImportFailure(f"a symbolic link to {real}, outside the folder imported; not read", source=str(path))
    return real


def _opened_inside(fd: int, root: Path, source: str) -> None:
    """Refuse an open descriptor whose file is outside `root` (a link swapped in between the check and the open).
    Linux names an open file's path in /proc/self/fd; elsewhere the check before the open stands alone."""
    try:
        opened = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return
    if opened.startswith("/") and _outside(opened, os.path.realpath(root)):
        raise ImportFailure(f"a symbolic link to {opened}, outside the folder imported; not read", source=source)


def read_text(path: Path, *, max_bytes: int = MAX_FILE_BYTES, root: Path | None = None) -> str:
    """A file's text, or an ImportFailure naming it: not a regular file, too large, binary, not UTF-8, unreadable,
    or (with `root`, the folder the import was given and found `path` in) a symbolic link leading out of `root`.

    A file named on its own (no `root`) is read wherever a link takes it: the person running the import chose it.
    Inside a folder, the real path is checked to stay inside it, then opened with O_NOFOLLOW (a link put in its
    place since is refused, not followed) and checked again through the open descriptor.

    Only regular files are read, and never more than `max_bytes` + 1 bytes of them: a `kep.yaml`
    symlinked to /dev/zero reports a size of 0 and never ends, and opening a FIFO waits for a writer that may
    never come. So the file is opened with O_NONBLOCK (a FIFO then opens at once instead of blocking), the open
    descriptor is refused unless it is a regular file, and the read is bounded whatever `st_size` says (files in
    /proc report 0). A regular file is read with a buffer of its own size, not the limit's: an import reads
    thousands of small files.
    """
    source = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    target: str | Path = path
    if root is not None:
        target = resolve_inside(path, root)
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        # A socket or a folder cannot be opened for reading at all: name what it is rather than the errno.
        try:
            _refuse_unless_regular(os.stat(path).st_mode, source)
        except OSError:
            pass
        raise ImportFailure(f"cannot read file ({exc.strerror or exc})", source=source) from exc
    try:
        if root is not None:
            _opened_inside(fd, root, source)
        info = os.fstat(fd)
        _refuse_unless_regular(info.st_mode, source)
        if info.st_size > max_bytes:
            raise ImportFailure(f"file too large ({info.st_size:,} bytes; the limit is {max_bytes:,})", source=source)
        chunks, left = [], max_bytes + 1
        ask = min(info.st_size + 1, left) if info.st_size else min(64 * 1024, left)
        while left > 0:
            chunk = os.read(fd, min(ask, left))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            ask = 64 * 1024  # a file that grew while read, or one that reports no size
        data = b"".join(chunks)
    except OSError as exc:
        raise ImportFailure(f"cannot read file ({exc.strerror or exc})", source=source) from exc
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise ImportFailure(f"file too large (over {max_bytes:,} bytes, the limit)", source=source)
    if b"\x00" in data:
        raise ImportFailure("binary file (contains NUL bytes)", source=source)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ImportFailure(f"not valid UTF-8 (byte {exc.start})", source=source, line=line) from exc
