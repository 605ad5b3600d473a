"""deploy/entrypoint.sh, the image's one entrypoint, run as the container runs it (production settings, JSON logs,
a metrics directory of its own) against the test PostgreSQL and Redis: web, worker QUEUE, beat, migrate, manage.
No container runtime works on these machines: the script is run directly, with the virtualenv first on PATH."""

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from http.client import HTTPConnection
from pathlib import Path

import pytest
import redis
from celery import Celery

from core.models import Heartbeat
from tests.conftest import require_service
from tests.core.servers import free_port, shared_database_url
from tests.scrape import Scrape

ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "deploy" / "entrypoint.sh"


@pytest.fixture
def environment(django_db_setup, django_db_blocker, redis_url, tmp_path):
    """The container's environment: what the image and the manifests set, pointed at the test services."""
    with django_db_blocker.unblock():
        database_url = shared_database_url()
    require_service(
        bool(database_url), "the entrypoint's processes need PostgreSQL (SQLite test databases are private)"
    )
    redis.Redis.from_url(redis_url).flushdb()
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        SIGTRACKER_BASE_URL="http://127.0.0.1:8000",
        SIGTRACKER_HTTPS="false",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=redis_url,
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"),
        LOG_LEVEL="INFO",
    )
    return env


class Process:
    """An entrypoint sub-command in a session of its own; its stderr lines collected as they come."""

    def __init__(self, env: dict, *args: str):
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [str(ENTRYPOINT), *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def json_lines(self) -> list[dict]:
        """Every line, each of which must be JSON (production logs are machine-read)."""
        parsed = []
        for line in self.lines:
            try:
                parsed.append(json.loads(line))
            except ValueError:
                raise AssertionError(f"not a JSON line: {line!r}") from None
        return parsed

    def wait_for(self, check, what: str, timeout: float = 60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"exited ({self.process.returncode}) before {what}:\n" + "\n".join(self.lines[-30:])
                )
            result = check()
            if result:
                return result
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}:\n" + "\n".join(self.lines[-30:]))

    def stop(self) -> int:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            raise


def http_get(port: int, path: str, **headers):
    try:
        conn = HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", path, headers={"Host": "127.0.0.1", **headers})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    except OSError:
        return None


def run(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(ENTRYPOINT), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_unknown_commands_and_queues_are_refused(environment):
    for args in ((), ("serve",), ("worker",), ("worker", "reminder"), ("manage",)):
        done = run(environment, *args)
        assert done.returncode == 64, (args, done.stderr)
        assert "usage: entrypoint.sh web | worker QUEUE... | beat | migrate | manage ARGS..." in done.stderr


def test_migrate_and_manage_run_with_production_settings(environment):
    # The Job may run again (a rollout retried): the second run has nothing to do.
    for _ in range(2):
        done = run(environment, "migrate")
        assert done.returncode == 0, done.stderr
    assert "No migrations to apply." in done.stdout
    done = run(environment, "manage", "showmigrations", "core")
    assert done.returncode == 0 and "[X] 0001_initial" in done.stdout, done.stderr
    # Production settings: they refuse to start without a real key.
    done = run({**environment, "SECRET_KEY": "short"}, "manage", "check")
    assert done.returncode != 0 and "SECRET_KEY must be set" in done.stderr


def test_web_serves_probes_pages_and_the_metrics_of_all_its_processes(environment):
    port = free_port()
    web = Process({**environment, "PORT": str(port), "WEB_CONCURRENCY": "2"}, "web")
    try:
        web.wait_for(lambda: (http_get(port, "/livez") or [0])[0] == 200, "/livez")
        assert http_get(port, "/readyz")[0] == 200
        for _ in range(6):  # spread over both processes
            status, headers, body = http_get(port, "/healthz", **{"X-Request-ID": "probe-0123456789"})
            assert status == 200 and json.loads(body)["database"].startswith("ok")
            assert headers["X-Request-ID"] == "probe-0123456789"
        status, _headers, body = http_get(port, "/metrics")
        assert status == 200
        metrics = Scrape(body.decode())
        assert metrics.value("django_http_requests_total", view="healthz", status="200") == 6
        assert metrics.value("django_db_query_duration_seconds_count", vendor="postgresql") >= 6
    finally:
        assert web.stop() == 0
    lines = web.json_lines()
    requests = [line for line in lines if line["logger"] == "sigtracker.request"]
    assert len(requests) == 6 and {line["request_id"] for line in requests} == {"probe-0123456789"}
    assert all(line["view"] == "healthz" and line["status"] == 200 for line in requests)
    # gunicorn's own lines are JSON too.
    assert any(line["logger"] == "gunicorn.error" and "Booting worker" in line["message"] for line in lines)


def test_a_worker_runs_its_queue_logs_the_task_and_serves_its_metrics(environment, django_db_blocker):
    metrics_port = free_port()
    env = {**environment, "SIGTRACKER_METRICS_PORT": str(metrics_port), "WORKER_CONCURRENCY": "1"}
    worker = Process(env, "worker", "reminders")
    client = Celery("entrypoint-test", broker=environment["CELERY_BROKER_URL"], set_as_current=False)
    with django_db_blocker.unblock():
        Heartbeat.objects.filter(name="beat").delete()
    try:
        worker.wait_for(lambda: any("ready." in line for line in worker.lines), "the worker to be ready")
        result = client.send_task("core.tasks.beat_heartbeat", queue="reminders")

        def ran():
            with django_db_blocker.unblock():
                return Heartbeat.objects.filter(name="beat").exists()

        worker.wait_for(ran, "the task to run")
        status, _headers, body = worker.wait_for(lambda: http_get(metrics_port, "/metrics"), "the metrics port")
        assert status == 200
        # The statement ran in a pool process: the main process's port adds up the pool's files.
        assert Scrape(body.decode()).value("django_db_query_duration_seconds_count", vendor="postgresql") >= 1
        assert http_get(metrics_port, "/metrics", **{"X-Forwarded-For": "203.0.113.5"})[0] == 403
    finally:
        assert worker.stop() == 0
        with django_db_blocker.unblock():
            Heartbeat.objects.filter(name="beat").delete()
    lines = worker.json_lines()
    done = [line for line in lines if line.get("task_id") == result.id]
    assert done and all(line["task_name"] == "core.tasks.beat_heartbeat" for line in done)
    assert any("succeeded" in line["message"] for line in done)


def test_beat_starts_with_its_schedule_in_tmp_and_queues_the_heartbeat(environment, tmp_path):
    schedule = tmp_path / "beat" / "celerybeat-schedule"
    schedule.parent.mkdir()
    beat = Process(
        {**environment, "BEAT_SCHEDULE_FILE": str(schedule), "SIGTRACKER_BEAT_HEARTBEAT_SECONDS": "1"}, "beat"
    )
    broker = redis.Redis.from_url(environment["CELERY_BROKER_URL"])
    try:
        beat.wait_for(lambda: any("beat: Starting" in line for line in beat.lines), "beat to start")
        # Beat sends the heartbeat at once and every second: messages wait in the broker for a worker.
        beat.wait_for(
            lambda: any(broker.llen(key) for key in broker.scan_iter() if broker.type(key) == b"list"), "a message"
        )
    finally:
        assert beat.stop() == 0
    assert list(schedule.parent.iterdir()), "beat wrote no schedule file"
    assert any(line["logger"] == "celery.beat" for line in beat.json_lines())
