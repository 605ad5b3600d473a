"""Real components for the tests of reminders, stats and outages (fixtures, imported by the conftest.py of each
test package that uses them): an SMTP server on loopback (aiosmtpd) that keeps what it
receives, and Celery worker subprocesses on the real Redis broker and the test database."""

import asyncio
import email
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from email import policy
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    message: email.message.EmailMessage

    @property
    def text(self) -> str:
        return self.message.get_body(("plain",)).get_content()

    @property
    def html(self) -> str:
        return self.message.get_body(("html",)).get_content()


class Mailbox:
    """aiosmtpd handler keeping every accepted message.

    `fail_next` answers that many DATA commands with `fail_reply` (by default a transient 451).
    `hold_after(n)` makes the SMTP conversation of message n+1 stop at RCPT until `release()`: the test
    knows the sender is mid-message and not yet past the point of delivery (to kill a worker then).
    """

    def __init__(self):
        self.messages: list[Received] = []
        self.fail_next = 0
        self.fail_reply = "451 4.3.0 try again later"
        self._hold_after: int | None = None
        self.holding = threading.Event()
        self._released = threading.Event()

    def hold_after(self, count: int) -> None:
        self._hold_after = count
        self.holding.clear()
        self._released.clear()

    def release(self) -> None:
        self._hold_after = None
        self._released.set()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802 - aiosmtpd API
        if self._hold_after is not None and len(self.messages) >= self._hold_after:
            self.holding.set()
            while not self._released.is_set():
                await asyncio.sleep(0.02)
            return "451 4.3.0 held by the test"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd API
        if self.fail_next:
            self.fail_next -= 1
            return self.fail_reply
        message = email.message_from_bytes(envelope.content, policy=policy.default)
        self.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos), message))
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[Received]:
        return [m for m in self.messages if address in m.rcpt_tos]

    def wait_for(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"only {len(self.messages)} of {count} messages arrived in {timeout:.0f} s")
            time.sleep(0.05)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def smtp_server():
    """A real SMTP server on 127.0.0.1 (aiosmtpd); yields (mailbox, port)."""
    from aiosmtpd.controller import Controller

    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield mailbox, controller.port
    finally:
        mailbox.release()
        controller.stop()


@pytest.fixture
def smtp_mailbox(smtp_server, settings):
    """Django's SMTP backend pointed at the loopback server; yields the mailbox."""
    mailbox, port = smtp_server
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_TIMEOUT = 10
    return mailbox


#: Every queue the project routes to (CELERY_TASK_ROUTES, CELERY_TASK_DEFAULT_QUEUE): a test worker consumes
#: them all unless a test names its own.
ALL_QUEUES = ("reminders", "github", "stats", "default")


class WorkerProcess:
    """`celery -A sigtracker worker` in a subprocess of its own session, so SIGKILL takes all of it.

    `queues` it consumes (all by default); `pool` "solo" (one task in the worker's own process) or "prefork"
    (a child process per task, which time limits need: the solo pool cannot interrupt a task)."""

    def __init__(self, env: dict, name: str, *, queues=ALL_QUEUES, pool: str = "solo"):
        self.output: list[str] = []
        self._ready = threading.Event()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "sigtracker",
                "worker",
                f"--pool={pool}",
                "--concurrency=1",
                "-Q",
                ",".join(queues),
                "--loglevel=INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-n",
                f"{name}@%h",
            ],
            cwd=BASE_DIR,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.output.append(line.rstrip())
            if " ready." in line:
                self._ready.set()

    def wait_ready(self, timeout: float = 30) -> "WorkerProcess":
        if not self._ready.wait(timeout):
            self.kill()
            raise AssertionError("Celery worker did not start:\n" + "\n".join(self.output[-30:]))
        return self

    def kill(self) -> None:
        """SIGKILL, as an OOM killer or a lost machine would: no cleanup, no acks."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, 9)
        self.process.wait(timeout=10)


@pytest.fixture
def celery_worker(redis_url, postgres_only, transactional_db, smtp_server):
    """Factory starting real Celery worker subprocesses on the Redis broker (its test db flushed first),
    the test database (PostgreSQL: a subprocess cannot see an in-memory SQLite) and the SMTP server.

    Yields `start(**env)` and a Celery client for sending tasks; workers are stopped before the
    database is flushed."""
    import redis
    from celery import Celery
    from django.conf import settings
    from django.db import connection

    redis.Redis.from_url(redis_url).flushdb()
    db = connection.settings_dict
    database_url = (
        f"postgres://{db['USER'] or 'postgres'}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )
    _, port = smtp_server
    base_env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "sigtracker.settings.dev",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": redis_url,
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(port),
        "EMAIL_TIMEOUT": "10",
        "SECRET_KEY": "worker-test-secret-key-" + "x" * 20,
        "LOG_LEVEL": "WARNING",
    }
    workers: list[WorkerProcess] = []

    def start(*, queues=ALL_QUEUES, pool: str = "solo", **env) -> WorkerProcess:
        worker = WorkerProcess({**base_env, **env}, name=f"test{len(workers)}", queues=queues, pool=pool)
        workers.append(worker)
        return worker.wait_ready()

    # Not the current app: shared tasks in this process must stay bound to the eager project app. It routes as
    # the project does, so a task sent from here lands on the queue a worker in production would take it from.
    client = Celery("sigtracker-test", broker=redis_url, set_as_current=False)
    client.conf.task_routes = settings.CELERY_TASK_ROUTES
    client.conf.task_default_queue = settings.CELERY_TASK_DEFAULT_QUEUE
    start.client = client
    start.redis = redis.Redis.from_url(redis_url)
    try:
        yield start
    finally:
        for worker in workers:
            worker.kill()  # idle by now; no need for a warm shutdown
        client.close()
        redis.Redis.from_url(redis_url).flushdb()
