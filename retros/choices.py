"""Choices of the retros domain: the categories of a retro's lines and the states of an action item."""

from django.db import models


class RetroCategory(models.TextChoices):
    WENT_WELL = "went_well", "Went well"
    TO_IMPROVE = "to_improve", "To improve"
    ACTION_ITEM = "action_item", "Action item"


class ActionStatus(models.TextChoices):
    OPEN = "open", "Open"
    IN_PROGRESS = "in_progress", "In progress"
    DONE = "done", "Done"
    DROPPED = "dropped", "Dropped"
