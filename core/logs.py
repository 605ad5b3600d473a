"""Structured logs: one JSON object per line in production, the usual human lines in development.

Every line carries what was going on when it was written: in a web process the request id, the user, the view;
in a worker the Celery task id and name. They live in context variables set by `RequestContextMiddleware` (which
also writes one line per request with its status and duration, and echoes the request id in `X-Request-ID`) and
by Celery's task_prerun/task_postrun signals (`task_context_*`, connected in core/apps.py), and every formatter
here reads them, so a `logger.warning(...)` anywhere in the code needs nothing extra.

The request id is the caller's `X-Request-ID` when it looks like one (an Ingress controller sets it, so the same id
is in its access log and ours), otherwise a fresh one; it is shown on the 500 page so that a user can quote it.
"""

import contextvars
import datetime
import json
import logging
import re
import time
import uuid

from . import metrics

REQUEST_ID_HEADER = "X-Request-ID"
#: A caller's id is kept only when it is short and plain (it ends up in logs and a response header).
_CALLER_ID = re.compile(r"^[A-Za-z0-9._:-]{8,128}$")

_context: contextvars.ContextVar[dict | None] = contextvars.ContextVar("sigtracker_log_context", default=None)

#: LogRecord attributes that are not "extra" fields.
_RESERVED = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


def log_context() -> dict:
    return dict(_context.get() or {})


def context_update(**values) -> None:
    _context.set({**(_context.get() or {}), **{k: v for k, v in values.items() if v not in (None, "")}})


def current_request_id() -> str:
    return (_context.get() or {}).get("request_id", "")


class ContextFilter(logging.Filter):
    """Copies the context (request id, task id...) onto each record, for the formatters below."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in (_context.get() or {}).items():
            if not hasattr(record, key):
                setattr(record, key, value)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, message, the context, any `extra`, and
    the traceback as one string."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.datetime.fromtimestamp(record.created, tz=datetime.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(_context.get() or {})
        for key, value in vars(record).items():
            if key not in _RESERVED and not key.startswith("_") and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack_info"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


class HumanFormatter(logging.Formatter):
    """The development format: the message as before, followed by the request or task id when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        context = _context.get() or {}
        tag = context.get("request_id") or context.get("task_id")
        return f"{line} [{tag}]" if tag else line


# --- web -----------------------------------------------------------------------------------------------------

request_logger = logging.getLogger("sigtracker.request")


def _view_name(request) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return getattr(request, "sigtracker_view", "") or "<unresolved>"
    return match.view_name or match._func_path


class RequestContextMiddleware:
    """First in MIDDLEWARE: gives the request an id, times it, writes its log line and its metrics."""

    def __init__(self, get_response):
        self.get_response = get_response

    def process_view(self, request, view_func, view_args, view_kwargs):
        # Lines written by the view itself carry its name and the user too.
        user = getattr(request, "user", None)
        context_update(view=_view_name(request), user=user.get_username() if user and user.is_authenticated else "")

    def __call__(self, request):
        caller = request.META.get("HTTP_X_REQUEST_ID", "")
        request_id = caller if _CALLER_ID.match(caller) else uuid.uuid4().hex
        request.request_id = request_id
        token = _context.set({"request_id": request_id})
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            seconds = time.perf_counter() - started
            view = _view_name(request)
            user = getattr(request, "user", None)
            username = user.get_username() if user is not None and user.is_authenticated else ""
            context_update(view=view, user=username)
            response[REQUEST_ID_HEADER] = request_id
            metrics.observe_request(
                view=view,
                method=request.method,
                status=response.status_code,
                seconds=seconds,
                page_cache=response.get("X-Page-Cache"),
            )
            # Probes and scrapes come every few seconds: logged only when they fail.
            if not getattr(request, "sigtracker_quiet", False) or response.status_code >= 500:
                request_logger.info(
                    "%s %s %s",
                    request.method,
                    request.path,
                    response.status_code,
                    extra={
                        "method": request.method,
                        "path": request.path,
                        "status": response.status_code,
                        "duration_ms": round(seconds * 1000, 1),
                    },
                )
            return response
        finally:
            _context.reset(token)


# --- workers -------------------------------------------------------------------------------------------------


#: Context tokens of the tasks running in this thread, by task id: an eager task run inside a web request must give
#: the request its context back when it ends, not clear it.
_task_tokens: dict[str, contextvars.Token] = {}


def task_context_set(sender=None, task_id=None, task=None, **kwargs) -> None:
    name = getattr(task, "name", None) or getattr(sender, "name", None)
    _task_tokens[task_id] = _context.set({**(_context.get() or {}), "task_id": task_id, "task_name": name})


def task_context_clear(sender=None, task_id=None, **kwargs) -> None:
    token = _task_tokens.pop(task_id, None)
    if token is None:
        return
    try:
        _context.reset(token)
    except ValueError:  # set in another context (a thread pool): nothing of ours to restore there
        _context.set(None)
