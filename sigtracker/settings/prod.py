"""Production: DEBUG off, refuses to start without a real SECRET_KEY, ALLOWED_HOSTS and SIGTRACKER_BASE_URL."""

import logging
import os
from urllib.parse import urlsplit

from django.core.checks.security.base import (
    SECRET_KEY_INSECURE_PREFIX,
    SECRET_KEY_MIN_LENGTH,
    SECRET_KEY_MIN_UNIQUE_CHARACTERS,
)
from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env_bool

DEBUG = env_bool("DEBUG", False)
# The same rule as `check --deploy` (security.W009), from Django's own constants, so that a key the site starts
# with is never one the deploy check calls weak (a 32-character key passed here and failed there).
if (
    len(SECRET_KEY) < SECRET_KEY_MIN_LENGTH  # noqa: F405
    or len(set(SECRET_KEY)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS  # noqa: F405
    or SECRET_KEY.startswith((SECRET_KEY_INSECURE_PREFIX, "dev-only"))  # noqa: F405
):
    raise ImproperlyConfigured(
        f"SECRET_KEY must be set to a random string of at least {SECRET_KEY_MIN_LENGTH} characters, e.g. "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
    )
if not ALLOWED_HOSTS:  # noqa: F405
    raise ImproperlyConfigured("ALLOWED_HOSTS must list the host names this site answers to.")
# Every link in a reminder email is built on SIGTRACKER_BASE_URL: unset, it is the demo's loopback address, which
# no reader can open. Loopback is accepted only when the site itself answers on loopback alone.
_LOOPBACK = {"localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0"}
_base_url = urlsplit(os.environ.get("SIGTRACKER_BASE_URL", "").strip())
_base_host = _base_url.hostname or ""
if (
    _base_url.scheme not in ("http", "https")
    or not _base_host
    or (_base_host in _LOOPBACK and not set(ALLOWED_HOSTS) <= _LOOPBACK)  # noqa: F405
):
    raise ImproperlyConfigured(
        "SIGTRACKER_BASE_URL must be set to the public address of this site (e.g. https://sigtracker.example.org), "
        "not localhost or 127.0.0.1: every link in the reminder emails starts with it."
    )

# HTTPS on by default; SIGTRACKER_HTTPS=false for a deployment behind plain HTTP.
_https = env_bool("SIGTRACKER_HTTPS", True)
SESSION_COOKIE_SECURE = _https
CSRF_COOKIE_SECURE = _https
SECURE_SSL_REDIRECT = _https and env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000" if _https else "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = _https
SECURE_HSTS_PRELOAD = _https and env_bool("SECURE_HSTS_PRELOAD", True)
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Persistent connections, checked before reuse (so a restarted PostgreSQL costs no manual step).
DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("CONN_MAX_AGE", "60"))  # noqa: F405
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True  # noqa: F405

# One JSON object per log line (core/logs.py) unless SIGTRACKER_LOG_FORMAT says "human".
if os.environ.get("SIGTRACKER_LOG_FORMAT", "json") == "json":
    SIGTRACKER_LOG_FORMAT = "json"
    LOGGING["handlers"]["console"]["formatter"] = "json"  # noqa: F405
    # Python's warnings too, as log records (logger "py.warnings"), not bare lines on stderr.
    logging.captureWarnings(True)

# Error tracking, only when SENTRY_DSN is set; personal data scrubbed before anything leaves (core/sentry.py).
if os.environ.get("SENTRY_DSN"):
    from core.sentry import sentry_init

    sentry_init(
        dsn=os.environ["SENTRY_DSN"],
        environment=os.environ.get("SENTRY_ENVIRONMENT", "production"),
        release=os.environ.get("SENTRY_RELEASE", ""),
        traces_sample_rate=float(os.environ.get("SENTRY_TRACES_SAMPLE_RATE", "0")),
    )
