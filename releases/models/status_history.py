"""The append-only history of tracked enhancements' statuses (`EnhancementStatusChange`), and the manager that
reads it as it now stands, corrections applied."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from ..choices import EnhancementStatus, HistorySource
from .tracking import TrackedEnhancement


class CurrentHistoryManager(models.Manager):
    """The history as it now stands: without rows a correction superseded, and without the withdrawals
    themselves. Every page, stat and export of the board reads this; `all_objects` keeps the whole record."""

    def get_queryset(self):
        later = self.model.all_objects.filter(supersedes=models.OuterRef("pk"))
        return super().get_queryset().filter(withdrawn=False).exclude(models.Exists(later))


class EnhancementStatusChange(models.Model):
    """One change of a tracked enhancement's status: the history that reproduces the board at any freeze.

    Append-only: a row is never updated or deleted. A correction (an actor GitHub renamed, an event it rewrote, a
    change the outside record no longer implies) is a new row that `supersedes` the old one; a change withdrawn
    with nothing in its place is a `withdrawn` row superseding it. `objects` reads the history as it now stands;
    `all_objects` the whole record, superseded rows included (the KEP timeline shows them struck through)."""

    tracked_enhancement = models.ForeignKey(TrackedEnhancement, on_delete=models.CASCADE, related_name="history")
    from_status = models.CharField(max_length=30, choices=EnhancementStatus.choices, blank=True)
    to_status = models.CharField(max_length=30, choices=EnhancementStatus.choices)
    changed_at = models.DateTimeField(default=timezone.now)
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    author = models.CharField(max_length=100, blank=True, help_text="Who made the change, when not a user here.")
    note = models.TextField(blank=True)
    source = models.CharField(max_length=20, choices=HistorySource.choices, blank=True, default="")
    link = models.URLField(max_length=500, blank=True, help_text="Where the change was made, e.g. the GitHub issue.")
    assumed = models.BooleanField(
        default=False,
        help_text="The instant is assumed (e.g. a fixture or notes import), not recorded when it happened.",
    )
    supersedes = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="superseded_by",
        help_text="The earlier row this one corrects (kept, shown as superseded).",
    )
    withdrawn = models.BooleanField(
        default=False,
        db_default=False,  # bulk COPY loaders (the synthetic demo data) name only the columns they know
        help_text="This row only withdraws the one it supersedes: its source no longer records that change.",
    )
    # A change nobody recorded an instant for, seen by a sync: it happened after this instant (the previous
    # sync that saw otherwise) and by `changed_at` (the sync that saw it).
    observed_since = models.DateTimeField(
        null=True, blank=True, help_text="Observed by a sync: the change happened between this and changed_at."
    )

    objects = CurrentHistoryManager()
    all_objects = models.Manager()

    class Meta:
        base_manager_name = "all_objects"
        ordering = ["tracked_enhancement", "changed_at", "pk"]
        indexes = [models.Index(fields=["tracked_enhancement", "changed_at"], name="statuschange_te_at_idx")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(to_status__in=EnhancementStatus.values),
                name="statuschange_to_valid",
                violation_error_message="Unknown status.",
            ),
            models.CheckConstraint(
                condition=models.Q(withdrawn=False) | models.Q(supersedes__isnull=False),
                name="statuschange_withdrawal_supersedes",
                violation_error_message="A withdrawal names the row it withdraws.",
            ),
        ]

    def __str__(self):
        return f"{self.tracked_enhancement}: {self.from_status or '∅'} → {self.to_status}"
