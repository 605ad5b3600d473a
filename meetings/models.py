from django.db import models
from django.urls import reverse

from community.models import Person, Sig
from keps.models import Kep
from releases.models import Release

PR_FLOW_FIELDS = ("open_prs", "prs_created", "prs_updated", "prs_closed", "prs_merged")


class MeetingManager(models.Manager):
    def get_by_natural_key(self, sig_slug, date):
        return self.get(sig__slug=sig_slug, date=date)


class Meeting(models.Model):
    """A SIG's (usually weekly) meeting, with the week's PR-flow figures from the notes."""

    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, related_name="meetings")
    date = models.DateField()
    title = models.CharField(max_length=300, blank=True)
    cancelled = models.BooleanField(default=False)
    recording_url = models.URLField(max_length=500, blank=True)
    open_prs = models.PositiveIntegerField(null=True, blank=True, help_text="Open PRs at the time of the meeting.")
    prs_created = models.PositiveIntegerField(null=True, blank=True)
    prs_updated = models.PositiveIntegerField(null=True, blank=True)
    prs_closed = models.PositiveIntegerField(null=True, blank=True)
    prs_merged = models.PositiveIntegerField(null=True, blank=True)
    source = models.CharField(max_length=300, blank=True, help_text="File (and line) the meeting was imported from.")
    notes_fingerprint = models.CharField(
        max_length=64,
        blank=True,
        editable=False,
        help_text="Hash of the notes section the meeting was read from (its text, not its place in the file); an "
        "incremental refresh leaves a meeting whose section is unchanged as it is.",
    )

    objects = MeetingManager()

    class Meta:
        ordering = ["-date", "sig__slug"]
        constraints = [
            models.UniqueConstraint(
                fields=["sig", "date"], name="meeting_unique_sig_date", violation_error_message="One meeting a day."
            ),
            *[
                models.CheckConstraint(
                    condition=models.Q(**{f"{field}__isnull": True}) | models.Q(**{f"{field}__gte": 0}),
                    name=f"meeting_{field}_non_negative",
                    violation_error_message=f"{field} cannot be negative.",
                )
                for field in PR_FLOW_FIELDS
            ],
        ]

    def __str__(self):
        return f"{self.sig} {self.date:%Y-%m-%d}" + (" (cancelled)" if self.cancelled else "")

    def natural_key(self):
        return (self.sig.slug, self.date.isoformat())

    natural_key.dependencies = ["community.sig"]

    def get_absolute_url(self):
        return reverse("meetings:meeting_detail", kwargs={"sig": self.sig.slug, "date": self.date.isoformat()})


class AgendaItem(models.Model):
    """A top-level point of a meeting's agenda, with its notes as Markdown and what it links to."""

    meeting = models.ForeignKey(Meeting, on_delete=models.CASCADE, related_name="agenda_items")
    order = models.PositiveIntegerField(default=0)
    title = models.CharField(max_length=500)
    presenters = models.ManyToManyField(Person, blank=True, related_name="agenda_items")
    presenters_text = models.CharField(max_length=300, blank=True, help_text="As written in the notes.")
    body = models.TextField(blank=True, help_text="Notes, in Markdown (rendered sanitised).")
    keps = models.ManyToManyField(Kep, blank=True, related_name="agenda_items")
    links = models.JSONField(default=list, blank=True, help_text="PR and issue URLs mentioned.")
    related_release = models.ForeignKey(
        Release, on_delete=models.SET_NULL, null=True, blank=True, related_name="agenda_items"
    )

    class Meta:
        ordering = ["meeting", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["meeting", "order"], name="agendaitem_unique_order", violation_error_message="Order taken."
            )
        ]

    def __str__(self):
        return self.title[:100]

    def get_absolute_url(self):
        return self.meeting.get_absolute_url() + f"#item-{self.order}"
