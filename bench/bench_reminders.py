"""1,000 freeze reminders for one milestone, end to end through a real Celery worker, Redis and an SMTP
server on loopback (budget 30 s), beside the floor: the same 1,000 messages sent by one plain smtplib loop.

Data, in a scratch database: one release whose enhancements freeze is a week away, one SIG with a mailing
list, 333 at-risk KEPs with three authors each: 999 personal notes and one digest. The timed span runs
from queueing the beat task to the SMTP server holding all 1,000 messages and every delivery row marked
sent; starting the worker is not timed. The floor resends the very bytes the server received, over one
SMTP connection. Needs Redis (SIGTRACKER_BENCH_REDIS_URL, default redis://127.0.0.1:6379/13).
"""

import datetime
import os
import smtplib
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

from bench.core import Figure, scratch_database, wall_time

ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("SIGTRACKER_BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
KEPS, AUTHORS_PER_KEP = 333, 3
RECIPIENTS = KEPS * AUTHORS_PER_KEP + 1
FREEZE = datetime.datetime(2030, 2, 7, 2, 0, tzinfo=datetime.UTC)
DUE = FREEZE - datetime.timedelta(days=7)


class Sink:
    """aiosmtpd handler that keeps each message's envelope and bytes."""

    def __init__(self):
        self.received: list[tuple[str, list[str], bytes]] = []
        self.count = 0

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd API
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        self.count += 1
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _reachable(url: str) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname, parsed.port or 6379), timeout=1):
            return True
    except OSError:
        return False


def build_data() -> None:
    from community.models import Person, Sig
    from keps.models import Kep
    from releases.choices import EnhancementStatus, MilestoneKind
    from releases.models import EnhancementStatusChange, Milestone, Release, TrackedEnhancement, status_writer

    opened = FREEZE - datetime.timedelta(days=30)
    release = Release.objects.create(version="1.40")
    Milestone.objects.create(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=FREEZE, quoted_timezone="PT")
    sig = Sig.objects.create(slug="sig-bench", mailing_list="sig-bench@example.com")
    people = Person.objects.bulk_create(
        Person(github=f"author{n}", email=f"author{n}@example.com") for n in range(KEPS * AUTHORS_PER_KEP)
    )
    keps = Kep.objects.bulk_create(Kep(number=5000 + n, title=f"Bench KEP {n}", owning_sig=sig) for n in range(KEPS))
    Kep.authors.through.objects.bulk_create(
        Kep.authors.through(kep_id=kep.pk, person_id=people[i * AUTHORS_PER_KEP + j].pk)
        for i, kep in enumerate(keps)
        for j in range(AUTHORS_PER_KEP)
    )
    with status_writer():  # a benchmark board laid out directly, its history just below
        rows = TrackedEnhancement.objects.bulk_create(
            TrackedEnhancement(
                release=release, kep=kep, sig=sig, status=EnhancementStatus.AT_RISK_ENHANCEMENTS, created_at=opened
            )
            for kep in keps
        )
    EnhancementStatusChange.objects.bulk_create(
        EnhancementStatusChange(
            tracked_enhancement=row, to_status=EnhancementStatus.AT_RISK_ENHANCEMENTS, changed_at=opened
        )
        for row in rows
    )


def start_worker(database_url: str, smtp_port: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "sigtracker.settings.dev",
        "DEBUG": "false",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": REDIS_URL,
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_port),
        "SECRET_KEY": "bench-worker-secret-key-" + "x" * 20,
        "LOG_LEVEL": "WARNING",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "sigtracker", "worker", "--loglevel=INFO", "--concurrency=2"]
        # The reminder tasks are routed to their own queue (CELERY_TASK_ROUTES), as the production worker reads it.
        + ["-Q", "reminders,default", "--without-gossip", "--without-mingle", "--without-heartbeat", "-n", "bench@%h"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    ready = threading.Event()
    lines: list[str] = []

    def read():
        for line in process.stdout:
            lines.append(line)
            if " ready." in line:
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(60):
        os.killpg(process.pid, 9)
        raise RuntimeError("Celery worker did not start:\n" + "".join(lines[-20:]))
    return process


def _database_url() -> str:
    """The URL of the database this process is on (the scratch one), for the worker to use the same."""
    from django.db import connection

    db = connection.settings_dict
    return (
        f"postgres://{db['USER'] or 'postgres'}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )


def _reminders_end_to_end(client, sink: Sink, smtp_port: int) -> float:
    """Seconds from queueing the beat task to the sink holding every message and every delivery row marked sent;
    the worker is started before the clock and killed after it."""
    from django.conf import settings

    from reminders.choices import DeliveryState
    from reminders.models import ReminderDelivery

    worker = start_worker(_database_url(), smtp_port)
    try:
        start = time.perf_counter()
        # Sent to the queue the project routes the task to (this bare client knows no routes).
        task = "reminders.tasks.send_due_freeze_reminders"
        queue = settings.CELERY_TASK_ROUTES[task]["queue"]
        client.send_task(task, kwargs={"now": DUE.isoformat()}, queue=queue)
        deadline = start + 120
        # Poll the in-process SMTP sink cheaply; ask the database only once all messages are in.
        while sink.count < RECIPIENTS or ReminderDelivery.objects.filter(state=DeliveryState.SENT).count() < RECIPIENTS:
            if time.perf_counter() > deadline:
                raise RuntimeError(f"only {sink.count} of {RECIPIENTS} reminders arrived in 120 s")
            time.sleep(0.05)
        return time.perf_counter() - start
    finally:
        os.killpg(worker.pid, 9)
        worker.wait(10)


def _resend(messages: list[tuple[str, list[str], bytes]], smtp_port: int) -> None:
    """The floor: the very bytes the server received, over one SMTP connection."""
    with smtplib.SMTP("127.0.0.1", smtp_port) as smtp:
        for mail_from, rcpt_tos, content in messages:
            smtp.sendmail(mail_from, rcpt_tos, content)


def run() -> list[Figure]:
    import logging

    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd logs every SMTP command at INFO
    if not _reachable(REDIS_URL):
        print(f"skipped: Redis not reachable at {REDIS_URL}")
        return []
    import redis
    from aiosmtpd.controller import Controller
    from celery import Celery
    from django.db import connection

    if connection.vendor != "postgresql":
        print("skipped: needs PostgreSQL (a worker process cannot share an in-memory SQLite database)")
        return []
    redis.Redis.from_url(REDIS_URL).flushdb()
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=_free_port())
    controller.start()
    client = Celery("sigtracker-bench", broker=REDIS_URL, set_as_current=False)
    try:
        with scratch_database():
            build_data()
            end_to_end = _reminders_end_to_end(client, sink, controller.port)
            recipients = [r for _, rcpts, _ in sink.received for r in rcpts]
            assert len(recipients) == len(set(recipients)) == RECIPIENTS, "duplicate or missing reminders"
        # A copy: the sink receives the floor's messages too.
        messages = list(sink.received)
        floor_s = wall_time(lambda: _resend(messages, controller.port))
    finally:
        controller.stop()
        client.close()
        redis.Redis.from_url(REDIS_URL).flushdb()
    print(f"{RECIPIENTS} reminders end to end in {end_to_end:.2f} s; plain smtplib loop {floor_s:.2f} s")
    return [
        Figure(
            name="reminders: 1,000 recipients via worker+Redis+SMTP",
            value=end_to_end,
            unit="s",
            floor=floor_s,
            budget=30.0,
            note="floor: same messages, one smtplib connection",
        )
    ]
