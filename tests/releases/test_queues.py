"""Queues by urgency, time limits, and the worker's settings: a GitHub sync stuck on a server that drips a byte at
a time does not delay a due reminder (real worker processes on the Redis broker, the test database, a loopback
SMTP server and a hostile GitHub stand-in); the worker and beat refuse to start in production without SECRET_KEY."""

import datetime
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from sigtracker.celery import app
from tests.github.hostile import Hostile, drip
from tests.github.standin import TOKEN, labeled, milestoned
from tests.reminder_board import FREEZE, HOUR

ROOT = Path(__file__).resolve().parent.parent.parent
WEEK_BEFORE = (FREEZE - 168 * HOUR).isoformat()

QUEUES = {
    "reminders.tasks.send_due_freeze_reminders": "reminders",
    "reminders.tasks.deliver_reminders": "reminders",
    "github_sync.tasks.sync_github_current_release": "github",
    "retros.tasks.sync_action_items": "github",
    "releases.tasks.compute_release_stats": "stats",
    "releases.tasks.compute_all_release_stats": "stats",
    "core.tasks.beat_heartbeat": "default",
    "releases.tasks.refresh_release_states": "default",
    "upstream.tasks.refresh_upstream": "imports",
}


def project_tasks() -> list:
    app.loader.import_default_modules()
    return [task for name, task in app.tasks.items() if not name.startswith("celery.")]


def test_each_task_is_routed_to_the_queue_of_its_urgency():
    for name, queue in QUEUES.items():
        assert app.amqp.router.route({}, name)["queue"].name == queue, name
    # A task nobody routed (a new one) goes to `default`, never to a queue no worker consumes.
    assert app.amqp.router.route({}, "people.tasks.not_routed_yet")["queue"].name == "default"
    assert {task.name for task in project_tasks()} <= set(QUEUES), "a task without a route here"


def test_every_task_has_soft_and_hard_time_limits():
    for task in project_tasks():
        soft = task.soft_time_limit or app.conf.task_soft_time_limit
        hard = task.time_limit or app.conf.task_time_limit
        assert soft and hard and soft < hard, (task.name, soft, hard)


def _celery(*args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DEBUG"}}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-m", "celery", "-A", "sigtracker", *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("debug", ["false", None])
@pytest.mark.parametrize("command", [["worker", "--pool=solo"], ["beat"]])
def test_worker_and_beat_refuse_to_start_in_production_without_a_secret_key(command, debug, tmp_path):
    env = {"ALLOWED_HOSTS": "tracker.example.org", "SIGTRACKER_BASE_URL": "https://tracker.example.org"}
    if debug is not None:
        env["DEBUG"] = debug
    if command == ["beat"]:
        command = ["beat", "-s", str(tmp_path / "schedule")]
    finished = _celery(*command, "--loglevel=WARNING", CELERY_BROKER_URL="redis://127.0.0.1:1/0", **env)
    assert finished.returncode != 0
    assert "SECRET_KEY must be set" in finished.stdout + finished.stderr


def test_worker_settings_follow_the_rule_of_manage_py_and_gunicorn():
    code = "from sigtracker.celery import app; from django.conf import settings; print(settings.SETTINGS_MODULE)"
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "DEBUG"}}
    production = {
        **env,
        "DEBUG": "false",
        "SECRET_KEY": "a-production-secret-key-" + "k3y" * 12,
        "ALLOWED_HOSTS": "tracker.example.org",
        "SIGTRACKER_BASE_URL": "https://tracker.example.org",
    }
    for environ, expected in (
        (production, "sigtracker.settings.prod"),
        ({**production, "DEBUG": ""}, "sigtracker.settings.prod"),
        ({**env, "DEBUG": "true"}, "sigtracker.settings.dev"),
    ):
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=60
        )
        assert out.stdout.strip() == expected, out.stderr[-2000:]


def _lock_held(release_id: int) -> bool:
    from github_sync.services.github_sync import LOCK_NAMESPACE

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND objid = %s",
            [LOCK_NAMESPACE, release_id],
        )
        return cursor.fetchone()[0] > 0


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_sync_stuck_on_a_dripping_server_does_not_delay_a_due_reminder(board, celery_worker, smtp_server):
    mailbox, _ = smtp_server
    deadline = 12
    with Hostile() as github:
        github.add_milestone("v1.26", number=30, due_on=FREEZE + 60 * 24 * HOUR)
        # In the board's cycle (2022-01-10 to its release day, 2022-05-03).
        opted = datetime.datetime(2022, 1, 20, tzinfo=datetime.UTC)
        github.add_issue(
            2001,
            title="KEP-2001: Sidecar containers",
            events=[labeled("sig/node", opted), milestoned("v1.26", opted), labeled("lead-opted-in", opted)],
        )
        github.overrides["/timeline"] = drip
        env = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": github.url, "GITHUB_SYNC_DEADLINE": str(deadline)}
        # One worker per queue, as the Procfile starts them; prefork, as in production (time limits need it).
        github_worker = celery_worker(queues=("github",), pool="prefork", **env)
        celery_worker(queues=("reminders",), **env)
        client = celery_worker.client

        client.send_task("github_sync.tasks.sync_github_current_release")
        started = time.monotonic()
        while not any("/timeline" in entry["path"] for entry in github.log):
            assert time.monotonic() - started < 30, "\n".join(github_worker.output[-40:] + [str(github.log)])
            time.sleep(0.1)
        assert _lock_held(board.release.pk)

        # A reminder falls due while the sync is stuck: it goes out at its usual pace, not after the sync.
        due = time.monotonic()
        client.send_task("reminders.tasks.send_due_freeze_reminders", kwargs={"now": WEEK_BEFORE})
        mailbox.wait_for(3, timeout=deadline)
        latency = time.monotonic() - due
        assert _lock_held(board.release.pk), "the sync ended before the reminders went out: nothing was proven"
        assert latency < 5, f"reminders took {latency:.1f} s behind a stuck sync"

        # Past its deadline the sync is cancelled and lets go of the release's lock ...
        while _lock_held(board.release.pk):
            assert time.monotonic() - started < deadline + 20, "the stuck sync still holds the release lock"
            time.sleep(0.2)
        # ... and the next beat's sync starts cleanly and gets through.
        del github.overrides["/timeline"]
        assert any("GitHub sync stopped" in line and "deadline" in line for line in github_worker.output)
        task = client.send_task("github_sync.tasks.sync_github_current_release")
        # The task logs the labels' summary, then reads the board under the same lock: it is done when Celery
        # says the task succeeded (on a busy machine the board's part outlasts a check made at the summary).
        while not any(task.id in line and "succeeded" in line for line in github_worker.output):
            assert time.monotonic() - started < deadline + 60, "\n".join(github_worker.output[-20:])
            time.sleep(0.2)
        assert any("GitHub sync: v1.26" in line and "1 issues read" in line for line in github_worker.output)
        assert not _lock_held(board.release.pk)


def test_a_web_process_can_queue_what_the_services_queue_by_name():
    # A fresh process that only sets Django up, as gunicorn does: Celery's autodiscovery never runs there, yet an
    # admin edit queues the stats recompute by its task name.
    script = (
        "import django; django.setup(); from celery import current_app; "
        "from releases.services.stats import STATS_TASK; print(STATS_TASK in current_app.tasks)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "sigtracker.settings.test"}
    answer = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    assert answer.stdout.strip() == "True", answer.stderr
