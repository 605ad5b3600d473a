"""Structured logs: JSON lines in production with the request's id, user, view and duration (the task's id and name
in workers), the human format in development; the request id in X-Request-ID and on the 500 page."""

import contextvars
import io
import json
import logging
import logging.config

import pytest
from django.test import override_settings

from core import logs
from core.tasks import beat_heartbeat


@pytest.fixture
def json_lines(settings):
    """The production LOGGING (SIGTRACKER_LOG_FORMAT=json) writing to a buffer; yields a reader of parsed lines."""
    stream = io.StringIO()
    config = json.loads(json.dumps(settings.LOGGING))
    config["handlers"]["console"].update(formatter="json", stream=stream)
    logging.config.dictConfig(config)

    def read():
        return [json.loads(line) for line in stream.getvalue().splitlines()]

    yield read
    logging.config.dictConfig(settings.LOGGING)


@pytest.mark.django_db
def test_a_request_writes_one_json_line_with_id_user_view_and_duration(client, admin_user, json_lines):
    client.force_login(admin_user)
    response = client.get("/releases/")
    request_id = response["X-Request-ID"]
    assert len(request_id) == 32
    (line,) = [entry for entry in json_lines() if entry["logger"] == "sigtracker.request"]
    assert line["request_id"] == request_id
    assert line["user"] == admin_user.username
    assert line["view"] == "releases:release_list"
    assert line["status"] == 200 and line["method"] == "GET" and line["path"] == "/releases/"
    assert line["level"] == "INFO" and isinstance(line["duration_ms"], float)
    assert line["time"].endswith("+00:00")


@pytest.mark.django_db
def test_a_caller_request_id_is_kept_when_plain_and_replaced_when_not(client):
    assert client.get("/livez", HTTP_X_REQUEST_ID="ingress-5f2c9a7e").headers["X-Request-ID"] == "ingress-5f2c9a7e"
    replaced = client.get("/livez", HTTP_X_REQUEST_ID="evil\nline").headers["X-Request-ID"]
    assert replaced != "evil\nline" and len(replaced) == 32


@pytest.mark.django_db
def test_probes_are_not_logged_unless_they_fail(client, json_lines, monkeypatch):
    client.get("/livez")
    client.get("/readyz")
    assert not [e for e in json_lines() if e["logger"] == "sigtracker.request"]
    monkeypatch.setattr("core.health.database_health", lambda: (False, "down: OperationalError"))
    client.get("/readyz")
    (line,) = [e for e in json_lines() if e["logger"] == "sigtracker.request"]
    assert line["status"] == 503 and line["view"] == "readyz"


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="tests.core.urls_boom")
def test_the_500_page_and_the_error_line_carry_the_request_id(client, json_lines):
    client.raise_request_exception = False
    response = client.get("/boom/")
    assert response.status_code == 500
    request_id = response["X-Request-ID"]
    assert request_id in response.content.decode()
    lines = json_lines()
    error = next(e for e in lines if e["logger"] == "django.request")
    assert error["request_id"] == request_id and "RuntimeError: boom" in error["exc_info"]
    access = next(e for e in lines if e["logger"] == "sigtracker.request")
    assert access["status"] == 500 and access["view"] == "boom"


def test_a_task_line_carries_its_id_and_name(json_lines):
    logs.task_context_set(task_id="abc-123", task=beat_heartbeat)
    logging.getLogger("releases.tasks").warning("GitHub sync failed: %s", "boom")
    logs.task_context_clear(task_id="abc-123")
    logging.getLogger("releases.tasks").warning("after")
    during, after = json_lines()
    assert during["task_id"] == "abc-123" and during["task_name"] == "core.tasks.beat_heartbeat"
    assert during["message"] == "GitHub sync failed: boom"
    assert "task_id" not in after


def test_an_eager_task_inside_a_request_gives_the_request_its_context_back():
    def request():
        logs.context_update(request_id="r-1")
        logs.task_context_set(task_id="t-1", task=beat_heartbeat)
        assert logs.log_context()["task_id"] == "t-1" and logs.log_context()["request_id"] == "r-1"
        logs.task_context_clear(task_id="t-1")
        assert logs.log_context() == {"request_id": "r-1"}

    # In a context of its own, as each request has.
    contextvars.Context().run(request)


def test_development_keeps_the_human_format(settings):
    assert settings.LOGGING["handlers"]["console"]["formatter"] == "human"
    record = logging.LogRecord("releases", logging.WARNING, __file__, 1, "sent %d", (3,), None)
    assert logs.HumanFormatter("%(levelname)s %(name)s: %(message)s").format(record) == "WARNING releases: sent 3"


def test_a_traceback_is_one_json_string():
    try:
        raise ValueError("bad")
    except ValueError:
        import sys

        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    entry = json.loads(logs.JsonFormatter().format(record))
    assert (
        entry["message"] == "failed"
        and entry["exc_info"].startswith("Traceback")
        and "ValueError: bad" in (entry["exc_info"])
    )
