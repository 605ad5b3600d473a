"""Health of the services the site depends on, for /healthz."""

from django.conf import settings
from django.db import connection


def database_health() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down"; the message says which
        return False, f"down: {exc.__class__.__name__}"
    return True, f"ok ({connection.vendor})"


def broker_health(*, timeout: float = 1.0) -> tuple[bool, str]:
    """Without a broker configured, tasks run eagerly: that is a healthy configuration, said as such."""
    if not settings.CELERY_BROKER_URL:
        return True, "not configured (tasks run eagerly)"
    from sigtracker.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=0, timeout=timeout)
    except Exception as exc:  # kombu raises several transport-specific errors
        return False, f"down: {exc.__class__.__name__}"
    return True, "ok"
