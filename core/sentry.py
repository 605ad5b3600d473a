"""Optional error tracking with Sentry: on only when SENTRY_DSN is set (production settings call `sentry_init`).

Each event is tagged with the request or task id of the JSON log lines (core/logs.py). Nothing personal leaves the
site: `send_default_pii` is off (no user, IP address, cookies or request bodies are attached by the SDK), and
`scrub_event` removes what could still carry them: the request's cookies, query string, body and every header but
a few harmless ones, the user's email, IP address and name (the user id is kept, to count affected users), local
variables, and email addresses in messages and exception values (reminder code handles recipients' addresses).
"""

import re

import sentry_sdk
from sentry_sdk.integrations.celery import CeleryIntegration
from sentry_sdk.integrations.django import DjangoIntegration
from sentry_sdk.integrations.logging import LoggingIntegration

from .logs import log_context

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
#: Request headers kept: they say what was asked for and by which kind of client, nothing about who.
_KEPT_HEADERS = {"accept", "content-type", "content-length", "host", "user-agent", "x-request-id"}


def _scrub_text(value):
    return _EMAIL.sub("[email]", value) if isinstance(value, str) else value


def scrub_event(event: dict, hint: dict | None = None) -> dict:
    """Sentry's `before_send`: the event without personal data (see the module docstring)."""
    # Sent while the failing request or task is still running: its id ties the event to its log lines.
    context = log_context()
    for key in ("request_id", "task_id"):
        if context.get(key):
            event.setdefault("tags", {})[key] = context[key]
    request = event.get("request") or {}
    for key in ("cookies", "data", "query_string", "env"):
        request.pop(key, None)
    if isinstance(request.get("headers"), dict):
        request["headers"] = {k: v for k, v in request["headers"].items() if k.lower() in _KEPT_HEADERS}
    user = event.get("user")
    if isinstance(user, dict):
        event["user"] = {"id": user["id"]} if "id" in user else {}
    if isinstance(event.get("logentry"), dict):
        for key in ("message", "formatted"):
            event["logentry"][key] = _scrub_text(event["logentry"].get(key))
        event["logentry"].pop("params", None)
    event["message"] = _scrub_text(event.get("message"))
    for exception in (event.get("exception") or {}).get("values", []):
        exception["value"] = _scrub_text(exception.get("value"))
        for frame in (exception.get("stacktrace") or {}).get("frames", []):
            # Local variables hold recipients, people and tokens: never sent.
            frame.pop("vars", None)
    for crumb in (event.get("breadcrumbs") or {}).get("values", []):
        crumb["message"] = _scrub_text(crumb.get("message"))
        crumb.pop("data", None)
    return event


def sentry_init(*, dsn: str, environment: str = "production", release: str = "", traces_sample_rate: float = 0.0):
    """Start the Sentry SDK for Django and Celery when `dsn` is set; returns whether it did."""
    if not dsn:
        return False
    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=release or None,
        send_default_pii=False,
        include_local_variables=False,
        max_request_body_size="never",
        traces_sample_rate=traces_sample_rate,
        before_send=scrub_event,
        integrations=[DjangoIntegration(), CeleryIntegration(), LoggingIntegration()],
    )
    return True
