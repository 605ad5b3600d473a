"""Managers any app's models may use."""

from django.db import models


class NaturalKeyManager(models.Manager):
    """Lets fixtures refer to rows by a readable key (a SIG's slug, a KEP's number) instead of ids."""

    def __init__(self, *fields):
        super().__init__()
        self.key_fields = fields

    def get_by_natural_key(self, *values):
        return self.get(**dict(zip(self.key_fields, values, strict=True)))
