from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_generation_triggers(sender, using, apps=None, **kwargs):
    """Migrations install the page cache's triggers for the tables that existed when they were written; a model
    added later gets its trigger here, after every migrate (and flush), idempotently."""
    from django.db import connections

    from .page_cache import generation_triggers_sync

    generation_triggers_sync(connections[using], registry=apps)


class CoreConfig(AppConfig):
    """Shared building blocks that know no domain: the page cache and its data generation, health checks, the
    import shell, tables, charts, Markdown. Imports no domain app (tests/core/test_layout.py)."""

    name = "core"
    verbose_name = "core"

    def ready(self):
        post_migrate.connect(_sync_generation_triggers, sender=self, dispatch_uid="core.generation_triggers")
