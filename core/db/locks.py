"""Advisory locks: PostgreSQL's, held by a session or a transaction; on SQLite, which lets one writer at a time
anyway, a process-local lock (session) or nothing (transaction)."""

import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection

__all__ = ["LockTimeout", "lock_key", "session_lock", "transaction_lock", "try_lock_free"]

#: How often a waiting session lock asks again (PostgreSQL has no timed wait for advisory locks).
POLL_SECONDS = 0.25

_local_locks: dict[tuple[int, int], threading.Lock] = {}


class LockTimeout(Exception):
    """The lock stayed taken for longer than the caller would wait."""


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for a lock named by text (PostgreSQL's advisory locks take integers)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True)


@contextmanager
def session_lock(namespace: int, key: int, *, timeout: float) -> Iterator[None]:
    """Hold lock (namespace, key) for the block, waiting up to `timeout` seconds (then LockTimeout).

    On PostgreSQL the lock is the session's: a process killed inside the block loses its connection and the
    server releases the lock with it. On SQLite, two threads of one process are kept from interleaving."""
    if connection.vendor != "postgresql":
        local = _local_locks.setdefault((namespace, key), threading.Lock())
        if not local.acquire(timeout=timeout):
            raise LockTimeout(f"lock {namespace}/{key} still taken after {timeout:.0f} s")
        try:
            yield
        finally:
            local.release()
        return
    ends = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while True:
            cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [namespace, key])
            if cursor.fetchone()[0]:
                break
            if time.monotonic() >= ends:
                raise LockTimeout(f"lock {namespace}/{key} still taken after {timeout:.0f} s")
            time.sleep(POLL_SECONDS)
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [namespace, key])


def transaction_lock(key: int) -> None:
    """Take lock `key` until the current transaction ends (PostgreSQL); SQLite serialises writers already."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def try_lock_free(key: int) -> bool:
    """Whether nobody else holds lock `key` (shared or exclusive) right now: the exclusive try-lock is taken and
    given back within one statement. Always true on SQLite, where a writer in flight blocks the reader anyway."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT CASE WHEN pg_try_advisory_lock(%s) THEN pg_advisory_unlock(%s) ELSE false END", [key, key]
        )
        return bool(cursor.fetchone()[0])
