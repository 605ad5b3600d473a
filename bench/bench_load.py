"""Load: the production stack under 50 concurrent clients for 60 s while an import and a stats recompute run.

gunicorn (2 workers, gthread) serves the bench settings (DEBUG off, WhiteNoise) from a scratch PostgreSQL database
holding `generate_synthetic --scale 10`; a plain Python client (threads, keep-alive connections, loopback only)
walks the release, enhancement, KEP and meeting pages with a short think time between requests, as people do.
Meanwhile `import_keps` (on the shared samples, when present) and `compute_stats` run against the same database.
Bounded in time and count; it stops by itself. LOAD_SECONDS and LOAD_CLIENTS shorten it for a quick look.
"""

import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from http.client import HTTPConnection
from pathlib import Path

from django.conf import settings
from django.core.management import call_command

from bench.core import Figure, scratch_database

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM_KEPS = ROOT.parent / "shared" / "data" / "upstream" / "enhancements"
DURATION = float(os.environ.get("LOAD_SECONDS", "60"))
CLIENTS = int(os.environ.get("LOAD_CLIENTS", "50"))
#: Seconds a simulated reader waits between pages (uniform); a closed loop with no pause measures queueing only.
THINK = (0.5, 1.5)
MAX_REQUESTS = 200_000


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _database_url() -> str:
    db = settings.DATABASES["default"]
    return (
        f"postgres://{db['USER'] or 'postgres'}:{db.get('PASSWORD') or ''}@{db.get('HOST') or '127.0.0.1'}:"
        f"{db.get('PORT') or 5432}/{db['NAME']}"
    )


def _urls() -> list[str]:
    """A realistic mix over the pages the issue names, from the data actually present."""
    from keps.models import Kep
    from meetings.models import Meeting
    from releases.models import Release

    versions = list(Release.objects.values_list("version", flat=True))
    numbers = list(Kep.objects.order_by("?").values_list("number", flat=True)[:50])
    meetings = list(Meeting.objects.select_related("sig").order_by("?")[:30])
    urls = ["/", "/releases/", "/keps/", "/keps/perma-beta/", "/meetings/", "/meetings/?q=perma+beta"]
    urls += [f"/releases/{v}/" for v in versions] + [f"/releases/{v}/enhancements/" for v in versions]
    urls += [f"/releases/{v}/enhancements/?status=done" for v in versions[-4:]]
    urls += [f"/keps/{n}/" for n in numbers] + [m.get_absolute_url() for m in meetings]
    return urls


class _Client(threading.Thread):
    def __init__(self, port: int, urls: list[str], stop_at: float, results: list, seed: int):
        super().__init__(daemon=True)
        self.port, self.urls, self.stop_at, self.results = port, urls, stop_at, results
        self.random = random.Random(seed)

    def run(self):
        conn = HTTPConnection("127.0.0.1", self.port, timeout=30)
        while time.monotonic() < self.stop_at and len(self.results) < MAX_REQUESTS:
            url = self.random.choice(self.urls)
            start = time.perf_counter()
            try:
                conn.request("GET", url, headers={"Host": "127.0.0.1"})
                response = conn.getresponse()
                response.read()
                status = response.status
                cached = response.getheader("X-Page-Cache") or "none"
            except OSError as exc:
                status = f"error: {exc.__class__.__name__}"
                cached = "error"
                conn.close()
                conn = HTTPConnection("127.0.0.1", self.port, timeout=30)
            self.results.append((url, status, time.perf_counter() - start, cached))
            time.sleep(self.random.uniform(*THINK))
        conn.close()


def _wait_for(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


def _start_server(port: int, env: dict) -> subprocess.Popen:
    """gunicorn as production runs it (2 workers, gthread), on loopback, in a session of its own to stop it by."""
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent)) or "gunicorn"
    return subprocess.Popen(
        [gunicorn, "sigtracker.wsgi", "--workers", "2", "--worker-class", "gthread", "--threads", "4",
         "--bind", f"127.0.0.1:{port}", "--log-level", "warning"],
        cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip


def _warm(port: int, urls: list[str]) -> None:
    """Every page twice, so both workers have rendered it.

    What is measured is a site in use while data changes (the page cache's invalidation under an import and a
    stats run), not the cold start of a deploy, whose first renders of ~130 pages would otherwise be most of the
    slowest 5 % on their own."""
    for url in urls * 2:
        conn = HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", url, headers={"Host": "127.0.0.1"})
        conn.getresponse().read()
        conn.close()


def _start_writers(env: dict, background: list) -> None:
    """`compute_stats`, and `import_keps` on the shared samples when present, against the served database; each
    is appended to `background` as it starts, so the caller stops every one that started."""
    manage = [sys.executable, "manage.py"]
    background.append(subprocess.Popen([*manage, "compute_stats"], cwd=ROOT, env=env,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))  # fmt: skip
    if UPSTREAM_KEPS.is_dir():
        background.append(subprocess.Popen([*manage, "import_keps", str(UPSTREAM_KEPS)], cwd=ROOT, env=env,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))  # fmt: skip


def _drive_clients(port: int, urls: list[str]) -> tuple[list, float]:
    """CLIENTS readers for DURATION seconds: each answer as (url, status, seconds, how it was made), and the
    seconds the readers took in all."""
    results: list = []
    stop_at = time.monotonic() + DURATION
    clients = [_Client(port, urls, stop_at, results, seed) for seed in range(CLIENTS)]
    started = time.perf_counter()
    for client in clients:
        client.start()
    for client in clients:
        client.join(DURATION + 60)
    return results, time.perf_counter() - started


def _figures(results: list, elapsed: float, background_status: list) -> list[Figure]:
    times = sorted(t for _, status, t, _ in results if status == 200)
    errors = [(u, s) for u, s, _, _ in results if s != 200]
    # How each answer was made (the page cache's X-Page-Cache): hit, stale (served while one request re-renders, or
    # while a writer is in flight), miss or skip (rendered). Renders are what readers queue behind.
    made = {kind: sum(1 for *_, cached in results if cached == kind) for kind in ("hit", "stale", "miss", "skip")}
    if errors:
        print("  load errors (first 5):", errors[:5])
    p95 = times[int(len(times) * 0.95) - 1] if times else float("inf")
    note = (
        f"{len(results)} requests, {CLIENTS} clients, {DURATION:.0f} s, import+stats exit {background_status}; "
        + ", ".join(f"{kind} {count}" for kind, count in made.items())
        + f"; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    return [
        Figure("load: p95 response time, 50 clients (gunicorn 2 workers)", p95, "s", budget=0.3, note=note),
        Figure("load: median response time", statistics.median(times) if times else float("inf"), "s"),
        Figure("load: errors", float(len(errors)), "count", budget=0.0),
        Figure("load: throughput", len(results) / elapsed, "req/s"),
        Figure("load: answers rendered (cache miss or skip)", float(made["miss"] + made["skip"]), "count"),
    ]


def run() -> list[Figure]:
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        print("  load: skipped (needs DATABASE_URL pointing at PostgreSQL)")
        return []
    with scratch_database():
        call_command("generate_synthetic", "--scale", "10", "--seed", "1", verbosity=0)
        urls = _urls()
        port = _free_port()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "sigtracker.settings.bench",
            "DATABASE_URL": _database_url(),
            "CONN_MAX_AGE": "60",
        }
        env.pop("CELERY_BROKER_URL", None)
        server = _start_server(port, env)
        background: list[subprocess.Popen] = []
        try:
            _wait_for(port)
            _warm(port, urls)
            _start_writers(env, background)
            results, elapsed = _drive_clients(port, urls)
            background_status = [p.wait(timeout=300) for p in background]
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
            for proc in background:
                if proc.poll() is None:
                    proc.kill()
    return _figures(results, elapsed, background_status)
