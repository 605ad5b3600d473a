"""Running the same work in several threads at once, for the tests that show two imports, two beats or two
senders never duplicate anything. Each thread gets its own database connection (closed at its end), starts
together with the others, and its result or exception is collected; `run_together` returns the results and
fails the test with the first exception."""

import threading

from django.db import connection


def run_together(work, *, times: int = 2, timeout: float = 120.0) -> list:
    """Run `work()` in `times` threads that start at the same moment; return their results (in finishing order).

    Raises the first exception a thread raised, and AssertionError if a thread is still running after `timeout`
    seconds (a lock that never comes free shows as a failure, not a hung suite).
    """
    start = threading.Barrier(times)
    results, errors = [], []

    def one():
        try:
            start.wait(timeout=timeout)
            results.append(work())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=one, daemon=True) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), f"a thread still runs after {timeout} s"
    if errors:
        raise errors[0]
    return results
