"""API tokens: one per bot or script, kept only as a hash (the key is shown once, when it is made)."""

import hashlib

from django.conf import settings
from django.db import models
from django.utils import timezone


def hash_key(key: str) -> str:
    """SHA-256 of a token key. Keys are 32 random bytes, so a fast hash is enough (no salt or stretching needed)."""
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    """A user's key to the read API: lifts the anonymous rate limit, and opens the API in private mode."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="What uses it, e.g. release-notes bot.")
    prefix = models.CharField(max_length=12, editable=False, help_text="The key's first characters, to recognise it.")
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["user__username", "name", "pk"]
        verbose_name = "API token"
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(key_hash=""), name="apitoken_has_hash", violation_error_message="No key."
            )
        ]

    def __str__(self):
        return f"{self.name} ({self.prefix}…) of {self.user}"
