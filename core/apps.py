from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_generation_triggers(sender, using, apps=None, **kwargs):
    """Migrations install the page cache's triggers for the tables that existed when they were written; a model
    added later gets its trigger here, after every migrate (and flush), idempotently."""
    from django.db import connections

    from .page_cache import generation_triggers_sync

    generation_triggers_sync(connections[using], registry=apps)


def _worker_metrics_start(**kwargs):
    """In a Celery worker's main process: serve the pool's metrics when the deployment gives it a port."""
    from django.conf import settings

    from .metrics import worker_metrics_serve

    if settings.SIGTRACKER_METRICS_PORT:
        worker_metrics_serve(port=settings.SIGTRACKER_METRICS_PORT)


def _worker_child_gone(pid=None, **kwargs):
    from .metrics import process_dead

    process_dead(pid)


def _connect_observability() -> None:
    """Statement timing on every database connection; in Celery processes, the task's id and name on every log line
    and the metrics port (the signals are no-ops where no worker runs)."""
    from celery import signals

    from . import logs, metrics

    metrics.instrument_database()
    signals.task_prerun.connect(logs.task_context_set, dispatch_uid="core.logs.task_context_set")
    signals.task_postrun.connect(logs.task_context_clear, dispatch_uid="core.logs.task_context_clear")
    signals.worker_init.connect(_worker_metrics_start, dispatch_uid="core.metrics.worker_metrics_start")
    signals.worker_process_shutdown.connect(_worker_child_gone, dispatch_uid="core.metrics.worker_child_gone")


class CoreConfig(AppConfig):
    """Shared building blocks that know no domain: the page cache and its data generation, health checks, the
    import shell, tables, charts, Markdown. Imports no domain app (tests/core/test_layout.py)."""

    name = "core"
    verbose_name = "core"

    def ready(self):
        post_migrate.connect(_sync_generation_triggers, sender=self, dispatch_uid="core.generation_triggers")
        _connect_observability()
