"""A real gunicorn with production settings, for tests of what only a real server does (WSGI headers, /healthz);
and the thread every stand-in server of the tests is served from."""

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from http.client import HTTPConnection
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = shutil.which("gunicorn", path=str(Path(sys.executable).parent))


#: How often a stand-in's serve_forever looks for a shutdown. The standard library's 0.5 s made each stop of a
#: stand-in wait up to half a second: 55 such stops, about 30 s, in one run of the fast lane.
SHUTDOWN_POLL_SECONDS = 0.02


def serve_in_thread(server) -> threading.Thread:
    """Serve `server` (a socketserver.BaseServer) from a daemon thread; `server.shutdown()` returns at once."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS}, daemon=True)
    thread.start()
    return thread


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def shared_database_url() -> str:
    """The URL of the database this test runs on, for a server process to share it (PostgreSQL only: an SQLite
    test database lives in memory)."""
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        return ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@contextlib.contextmanager
def production_gunicorn(*args: str, **env: str):
    """Serve sigtracker.wsgi (production settings) on a free port; yields the port. `env` overrides the
    environment; `args` are extra gunicorn options."""
    if not GUNICORN:
        pytest.skip("gunicorn is not installed in this virtualenv")
    port = free_port()
    # Not the test process's settings module, nor the async-safety escape hatch the browser tests set.
    environ = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    environ.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        SIGTRACKER_BASE_URL=f"http://127.0.0.1:{port}",
        SIGTRACKER_HTTPS="false",
        CELERY_BROKER_URL="",
    )
    environ.update(env)
    server = subprocess.Popen(
        [GUNICORN, "sigtracker.wsgi", "--workers", "1", "--bind", f"127.0.0.1:{port}", "--log-level", "error", *args],
        cwd=ROOT, env=environ, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                HTTPConnection("127.0.0.1", port, timeout=0.5).connect()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn did not start (exit code {server.poll()})") from None
                time.sleep(0.1)
        yield port
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)


def get(port: int, path: str, **headers: str):
    """GET `path`; returns (status, headers as a dict, body)."""
    conn = HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Host": "127.0.0.1", **headers})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()
