from django.db import models


class Widget(models.Model):
    """Stands for any model a later release adds to a watched app."""

    name = models.CharField(max_length=50)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name
