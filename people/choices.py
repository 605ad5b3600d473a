from django.db import models


class ChangeSource(models.TextChoices):
    """Where a change to someone's reminder settings was made (kept with each logged change)."""

    PREFERENCES = "preferences", "Their preferences page"
    UNSUBSCRIBE = "unsubscribe", "One-click unsubscribe"
    SIGN_IN = "sign_in", "Sign-in with GitHub"
    CALENDAR = "calendar", "Calendar link reset"
