"""Redis down and back, PostgreSQL restarted: against real processes.

- A Redis of the test's own (a real redis-server on a free port) is the broker; it is killed and restarted,
  so the shared Redis of other tests is untouched. While it is down, pages and admin edits keep working and
  /healthz names the broker; the reminders that fell due in the outage go out once when it is back, if their
  freeze has not passed, and are recorded as skipped if it has.
- PostgreSQL is restarted under a gunicorn serving requests: requests in flight may fail, the next ones
  succeed with no manual step (persistent connections with health checks). A cluster of the test's own
  (initdb, pg_ctl, a free port) is the one restarted: the machine's PostgreSQL is never stopped by a test.
"""

import datetime
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.client import HTTPConnection
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import override_settings

from releases.models import TrackedEnhancement
from reminders.choices import DeliveryState
from reminders.models import ReminderDelivery
from reminders.tasks import send_due_freeze_reminders
from sigtracker.celery import app
from tests.brokers import drop_broker_connections
from tests.conftest import require_service
from tests.live_services import free_port
from tests.reminder_board import FREEZE, HOUR

ROOT = Path(__file__).resolve().parents[2]
REDIS_SERVER = shutil.which("redis-server")


class OwnRedis:
    """A redis-server process of this test's own, on a free port, that can be stopped and started again."""

    def __init__(self, tmp_path):
        self.port = free_port()
        self.dir = tmp_path
        self.proc = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                HTTPConnection("127.0.0.1", self.port, timeout=0.2).connect()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None


@pytest.fixture
def broker(tmp_path, settings):
    """The Celery app pointed at a Redis of our own, not eager: what production runs."""
    require_service(bool(REDIS_SERVER), "redis-server is not installed")
    redis = OwnRedis(tmp_path)
    redis.start()
    old = dict(app.conf.broker_url and {"broker_url": app.conf.broker_url} or {})
    settings.CELERY_BROKER_URL = redis.url
    app.conf.broker_url = redis.url
    app.conf.task_always_eager = False
    drop_broker_connections()
    try:
        yield redis
    finally:
        redis.stop()
        app.conf.task_always_eager = True
        app.conf.broker_url = old.get("broker_url")
        drop_broker_connections()


@pytest.mark.django_db(transaction=True)
def test_with_redis_down_pages_edits_and_health_keep_working(broker, board, admin_client):
    from core.health import beat_heartbeat_record

    beat_heartbeat_record()  # beat reported just before the outage: only the broker is down
    broker.stop()
    assert admin_client.get("/releases/").status_code == 200
    assert admin_client.get(f"/releases/{board.release.version}/").status_code == 200
    row = board.rows[0]
    started = time.monotonic()
    with override_settings(SIGTRACKER_STATS_DEBOUNCE_SECONDS=0):
        from releases.services import tracked_enhancement_set_status

        tracked_enhancement_set_status(tracked_enhancement=row, status="tracked_enhancements", note="outage edit")
    assert time.monotonic() - started < 15
    assert TrackedEnhancement.objects.get(pk=row.pk).status == "tracked_enhancements"
    health = admin_client.get("/healthz")
    # Degraded, not down: the load balancer keeps the site in rotation while pages work.
    assert health.status_code == 200 and health.json()["status"] == "degraded: broker"
    # Beat cannot queue its run while Redis is down (this is what beat would hit, and log).
    with pytest.raises(Exception):  # noqa: B017 - kombu's OperationalError subclass varies by transport
        send_due_freeze_reminders.apply_async()


@pytest.mark.django_db(transaction=True)
def test_reminders_missed_in_an_outage_that_outlasts_the_freeze_are_recorded_not_sent(broker, board, admin_client):
    # The outage covers the 1-day reminder (FREEZE - 24 h) and the "now in effect" one (FREEZE) of the
    # enhancements freeze; Redis is back at FREEZE + 3 h, before the exception window closes (FREEZE + 2 d).
    broker.stop()
    broker.start()
    drop_broker_connections()
    assert admin_client.get("/healthz").status_code == 200
    call_command("send_freeze_reminders", "--now", (FREEZE + 3 * HOUR).isoformat(), verbosity=0)
    at_freeze = ReminderDelivery.objects.filter(milestone=board.freeze, anchor="freeze", offset_hours=0)
    # The freeze itself has passed: its reminders are recorded as skipped, with the reason, and not sent.
    assert at_freeze.exists()
    assert set(at_freeze.values_list("state", flat=True)) == {DeliveryState.SKIPPED}
    assert "freeze had passed" in at_freeze.first().error
    assert mail.outbox == []


@pytest.mark.django_db(transaction=True)
def test_a_reminder_missed_in_an_outage_that_ends_before_the_freeze_goes_out_once(broker, board):
    broker.stop()
    broker.start()
    drop_broker_connections()
    back_before = FREEZE - 20 * HOUR
    call_command("send_freeze_reminders", "--now", back_before.isoformat(), verbosity=0)
    sent = ReminderDelivery.objects.filter(
        milestone=board.freeze, anchor="freeze", offset_hours=24, state=DeliveryState.SENT
    )
    assert sent.filter(kind="digest").count() == 1
    first_batch = len(mail.outbox)
    assert first_batch == sent.count() > 0
    # The next beats send nothing again.
    for later in (back_before + 15 * datetime.timedelta(minutes=1), back_before + HOUR):
        call_command("send_freeze_reminders", "--now", later.isoformat(), verbosity=0)
    assert len(mail.outbox) == first_batch


class OwnPostgres:
    """A PostgreSQL cluster of this test's own (initdb in a temporary folder, pg_ctl on a free port), so that
    restarting it touches no database of anyone else on the machine. Run as the `postgres` user when the test
    runs as root (PostgreSQL refuses to run as root)."""

    def __init__(self):
        bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name))
        self.bin = bins[-1].parent if bins else None
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="sigtracker-pg-", dir="/tmp"))
        self.data = self.dir / "data"

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, timeout=120, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/sigtracker"

    def _ctl(self, action: str) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.dir / "log"), "-m", "fast", "-w",
                  action)  # fmt: skip

    def start(self) -> "OwnPostgres":
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self._ctl("start")
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "sigtracker")
        return self

    def restart(self) -> None:
        self._ctl("restart")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.mark.services  # a PostgreSQL server of its own: the fast lane runs without PostgreSQL
def test_postgresql_restart_under_load_recovers_without_a_manual_step():
    """Against a PostgreSQL of the test's own: the machine's server, shared with other test runs, is never
    stopped or restarted here."""
    postgres = OwnPostgres()
    require_service(postgres.bin is not None, "PostgreSQL's initdb and pg_ctl are not installed")
    try:
        postgres.start()
        _restart_under_load(postgres)
    finally:
        postgres.stop()


def _restart_under_load(postgres: "OwnPostgres") -> None:
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"},
        "DJANGO_SETTINGS_MODULE": "sigtracker.settings.bench",
        "DATABASE_URL": postgres.url,
        "CONN_MAX_AGE": "60",
        "SIGTRACKER_PAGE_CACHE_SECONDS": "0",
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, timeout=600)
    subprocess.run(
        [*manage, "shell", "-c", "from releases.models import Release; Release.objects.create(version='1.24')"],
        cwd=ROOT, env=env, check=True, timeout=120,
    )  # fmt: skip
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent))
    server = subprocess.Popen(
        [gunicorn, "sigtracker.wsgi", "--workers", "2", "--bind", f"127.0.0.1:{port}", "--log-level", "error"],
        cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip
    results: list[tuple[float, int | str]] = []
    stop = threading.Event()

    def load():
        while not stop.is_set():
            try:
                conn = HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("GET", "/releases/1.24/", headers={"Host": "127.0.0.1"})
                status = conn.getresponse().status
                conn.close()
            except OSError as exc:
                status = exc.__class__.__name__
            results.append((time.monotonic(), status))
            time.sleep(0.02)

    threads = [threading.Thread(target=load, daemon=True) for _ in range(4)]
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(s == 200 for _, s in results):
            if not threads[0].is_alive():
                for thread in threads:
                    thread.start()
            time.sleep(0.2)
        assert any(s == 200 for _, s in results), results[-5:]
        restarted_at = time.monotonic()
        postgres.restart()
        time.sleep(3)
        stop.set()
        for thread in threads:
            thread.join(15)
    finally:
        stop.set()
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)
    after = [s for t, s in results if t > restarted_at + 2]
    assert after, "no request after the restart"
    # Every request made after the restart settled succeeded: no manual step, no stuck worker.
    assert all(s == 200 for s in after[-20:]), after[-20:]
