"""gunicorn's configuration for the container (`entrypoint.sh web`): `gunicorn -c deploy/gunicorn.conf.py`.

Every value comes from the environment the Deployment sets. The access log is off: the request middleware writes one
line per request with its id, user, view and duration (core/logs.py). gunicorn's own lines (boot, worker restarts)
are JSON too when SIGTRACKER_LOG_FORMAT is json, so a log pipeline reads one format.
"""

import os

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# Kubernetes sends SIGTERM and waits terminationGracePeriodSeconds (30): requests in flight finish first.
graceful_timeout = 25
keepalive = 5
accesslog = None
# Workers' heartbeat files: a tmpfs, so a slow disk cannot get a worker killed (the root filesystem is read-only).
worker_tmp_dir = os.environ.get("GUNICORN_WORKER_TMP_DIR", "/dev/shm" if os.path.isdir("/dev/shm") else None)

if os.environ.get("SIGTRACKER_LOG_FORMAT", "json" if os.environ.get("DEBUG") == "false" else "human") == "json":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "core.logs.JsonFormatter"}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "root": {"level": "INFO", "handlers": []},
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["console"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
        },
    }


def child_exit(server, worker):
    """A web process ended: its live gauges leave the pod's metrics (prometheus-client multiprocess mode)."""
    from core.metrics import process_dead

    process_dead(worker.pid)
