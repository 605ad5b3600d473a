"""Choices of the reminders domain."""

from django.db import models


class ReminderKind(models.TextChoices):
    DIGEST = "digest", "SIG digest"
    PERSONAL = "personal", "Personal note"


class DeliveryState(models.TextChoices):
    CLAIMED = "claimed", "Claimed (sending)"
    SENT = "sent", "Sent"
    FAILED = "failed", "Failed"
    SKIPPED = "skipped", "Skipped"
