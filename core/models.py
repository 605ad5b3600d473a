from django.db import models


class DataGeneration(models.Model):
    """The data generation on SQLite: a single counter that every write to the watched tables increments (database
    triggers, see core/page_cache.py). Public pages are cached under it, so any change — admin, import,
    stats, bulk COPY — makes the next request render afresh. PostgreSQL uses a sequence instead (migration 0004),
    so that writers do not queue on this row."""

    value = models.BigIntegerField(default=0)

    class Meta:
        # The table kept its name when the model moved from the config package to core: no data moves.
        db_table = "sigtracker_datageneration"
        verbose_name = "data generation"

    def __str__(self):
        return str(self.value)


class Heartbeat(models.Model):
    """When a periodic process last proved it is alive. Beat queues `core.tasks.beat_heartbeat` every
    SIGTRACKER_BEAT_HEARTBEAT_SECONDS and a worker writes the time here, so a fresh row means beat, the broker and
    a worker all work; /healthz reads it, so reminders can no longer stop without anyone seeing."""

    name = models.CharField(max_length=50, primary_key=True)
    at = models.DateTimeField()

    class Meta:
        db_table = "sigtracker_heartbeat"
        ordering = ["name"]

    def __str__(self):
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"
