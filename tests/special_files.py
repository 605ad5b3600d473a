"""Files that are not regular files, for the importers' tests."""

import errno
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def fifo_with_a_writer(path: Path, text: str, *, seconds: float = 30.0):
    """Make `path` a FIFO and offer `text` once to the first reader that opens it (for up to `seconds`).

    An importer that opened the FIFO (and blocked waiting for a writer) then reads `text` instead of hanging
    the test run forever, so the test fails instead of stalling; one that refuses FIFOs never meets the writer.
    The writer opens without blocking, so it never waits for a reader that does not come.
    """
    os.mkfifo(path)
    stop = threading.Event()

    def write():
        deadline = time.monotonic() + seconds
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
                    return
                time.sleep(0.02)
                continue
            try:
                os.write(fd, text.encode())
            except OSError:
                pass
            finally:
                os.close(fd)
            return

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        yield path
    finally:
        stop.set()
        writer.join()
