"""Settings modules per environment, and the one rule every entry point uses to pick one."""

import os

#: Set by an entry point before it imports anything of `sigtracker`: importing the package loads the Celery app,
#: which picks the settings module by this same rule, so the entry point's own default has to be known by then.
ENTRY_DEFAULT_VARIABLE = "SIGTRACKER_DEFAULT_SETTINGS"


def settings_module(*, default: str | None = None) -> str:
    """The settings module for `manage.py`, gunicorn (`wsgi.py`) and Celery's worker and beat (`celery.py`).

    An explicit DJANGO_SETTINGS_MODULE wins; otherwise DEBUG=false in the environment selects production and
    DEBUG=true development, and with DEBUG unset the entry point's own `default` holds (the demo's `manage.py`:
    dev; the long-running processes a deployment starts, gunicorn and Celery: prod, which refuses to start without
    a SECRET_KEY). One rule, so that a worker never runs other settings than the web process beside it.
    """
    explicit = os.environ.get("DJANGO_SETTINGS_MODULE")
    if explicit:
        return explicit
    debug = os.environ.get("DEBUG", "").strip().lower()
    if debug in {"0", "false", "no", "off"}:
        return "sigtracker.settings.prod"
    if debug in {"1", "true", "yes", "on"}:
        return "sigtracker.settings.dev"
    return default or os.environ.get(ENTRY_DEFAULT_VARIABLE) or "sigtracker.settings.prod"
