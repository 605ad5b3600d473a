"""Choices of the retros domain: the categories of a retro's lines and the states of an action item."""

from django.db import models


class RetroCategory(models.TextChoices):
    WENT_WELL = "went_well", "Went well"
    TO_IMPROVE = "to_improve", "To improve"
    DISCUSS = "discuss", "To discuss"
    ACTION_ITEM = "action_item", "Action item"


#: What people add on the board (action items are made by leads and curators).
BOARD_CATEGORIES = (RetroCategory.WENT_WELL, RetroCategory.TO_IMPROVE, RetroCategory.DISCUSS)
BOARD_CATEGORY_CHOICES = [(c.value, c.label) for c in BOARD_CATEGORIES]


class ActionStatus(models.TextChoices):
    OPEN = "open", "Open"
    IN_PROGRESS = "in_progress", "In progress"
    DONE = "done", "Done"
    DROPPED = "dropped", "Dropped"
    # Imported from notes that name no status: a suggestion of that day, not known to be open work.
    NOT_RECORDED = "not_recorded", "Not recorded"


class StatusSource(models.TextChoices):
    """Where an action item's status change came from (its history rows keep theirs)."""

    BOARD = "board", "Board"
    ADMIN = "admin", "Admin"
    GITHUB = "github", "GitHub issue"
    NOTES = "notes", "Meeting notes"
    API = "api", "API"
