"""Health of the services the site depends on, for /healthz; and beat's heartbeat, which it reports.

What /healthz answers: the load balancer takes a web process out of rotation on a 503, so 503 means
"this process cannot serve pages", which is only true when the database is down. Without Redis, pages and edits
keep working (stats recomputes wait for the nightly run, reminders catch up), so a broker outage or a stale beat is
200 with `"status": "degraded: ..."` for monitoring to alert on, not a site outage.
"""

import datetime

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone
from django.utils.module_loading import import_string

from .models import Heartbeat

BEAT = "beat"


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
    # The project's Celery app, as the config package set it up; core names no project module.
    from celery import current_app as app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=0, timeout=timeout)
    except Exception as exc:  # kombu raises several transport-specific errors
        return False, f"down: {exc.__class__.__name__}"
    return True, "ok"


def beat_heartbeat_record(*, at: datetime.datetime | None = None) -> None:
    """Write the time beat's heartbeat task ran (one row, overwritten)."""
    Heartbeat.objects.update_or_create(name=BEAT, defaults={"at": at or timezone.now()})


def beat_health(*, now: datetime.datetime | None = None) -> tuple[bool, str]:
    """Stale after two heartbeat intervals without a heartbeat: beat, or every worker, has stopped.

    A beat that never reported is degraded like a stale one: nothing proves reminders will go out, whether beat was
    never started or has not yet run once (its first heartbeat comes within one interval of starting). Without a
    broker there is no beat at all (the demo runs tasks in-process)."""
    if not settings.CELERY_BROKER_URL:
        return True, "not configured (no broker)"
    try:
        at = Heartbeat.objects.filter(name=BEAT).values_list("at", flat=True).first()
    except DatabaseError as exc:
        return True, f"unknown ({exc.__class__.__name__})"
    if at is None:
        return False, "never reported (is celery beat running?)"
    interval = settings.SIGTRACKER_BEAT_HEARTBEAT_SECONDS
    age = max(((now or timezone.now()) - at).total_seconds(), 0)
    if age > 2 * interval:
        return False, f"stale (last heartbeat {age:.0f} s ago, expected every {interval} s)"
    return True, f"ok (last heartbeat {age:.0f} s ago)"


def extra_health() -> list[tuple[str, bool, str]]:
    """The apps' checks (SIGTRACKER_HEALTH_CHECKS: dotted paths of callables returning (name, ok, state)); core
    names no app. A check that raises is reported as unknown, not as a failure of /healthz."""
    results = []
    for path in getattr(settings, "SIGTRACKER_HEALTH_CHECKS", []):
        try:
            results.append(import_string(path)())
        except Exception as exc:  # a check's own failure must not take /healthz down
            results.append((path.rsplit(".", 1)[-1], True, f"unknown ({exc.__class__.__name__})"))
    return results


def site_health() -> tuple[int, dict]:
    """(HTTP status, body) for /healthz: 503 only when the database is down; otherwise 200, "ok" or "degraded"
    naming what is down or stale (the apps' checks included: "degraded: upstream")."""
    db_ok, db_state = database_health()
    broker_ok, broker_state = broker_health()
    beat_ok, beat_state = beat_health() if db_ok else (True, "unknown (database down)")
    body = {"database": db_state, "broker": broker_state, "beat": beat_state}
    if not db_ok:
        body["status"] = "unavailable: database"
        return 503, body
    checks = [("broker", broker_ok), ("beat", beat_ok)]
    for name, ok, state in extra_health():
        body[name] = state
        checks.append((name, ok))
    degraded = [name for name, ok in checks if not ok]
    body["status"] = "ok" if not degraded else f"degraded: {', '.join(degraded)}"
    return 200, body


def readiness() -> tuple[int, dict]:
    """(HTTP status, body) for /readyz, Kubernetes' readiness probe: may this process be sent requests? Only the
    database decides, as for /healthz; Redis and beat are not asked, so a Redis outage never empties the Service."""
    db_ok, db_state = database_health()
    return (200 if db_ok else 503), {"status": "ready" if db_ok else "unavailable: database", "database": db_state}


def liveness() -> tuple[int, dict]:
    """(HTTP status, body) for /livez, Kubernetes' liveness probe: should this container be restarted? Answering at
    all proves the process is not wedged; nothing outside it is asked, because a restart cures no outage of the
    database or Redis and restarting every pod at once during one only adds to it."""
    return 200, {"status": "alive"}
