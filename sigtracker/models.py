from django.db import models


class DataGeneration(models.Model):
    """A single counter that every write to the curated tables increments (database triggers, see
    sigtracker/migrations/0002). Public pages are cached under it, so any change — admin, import, stats,
    bulk COPY — makes the next request render afresh."""

    value = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = "data generation"

    def __str__(self):
        return str(self.value)
