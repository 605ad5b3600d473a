from django.apps import AppConfig


class ReleasesConfig(AppConfig):
    name = "releases"
    verbose_name = "Releases"

    def ready(self):
        # The stats service queues its recompute by task name (importing the task would close the circle
        # stats -> tasks -> stats), so the task must be registered in every process that edits a release, the
        # web processes included, not only in workers, where Celery's autodiscovery imports it.
        from releases import tasks  # noqa: F401
