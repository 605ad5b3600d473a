"""The reminders' records: one row per reminder and recipient (`ReminderDelivery`, the once-per-recipient
guarantee), the one-click unsubscribes, and SIGs' Slack webhooks.

They were born in the releases and people apps and keep those apps' table names (`db_table`): moving them here
moved no row (reminders/migrations/0001_initial.py)."""

from django.db import models
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone

from .choices import DeliveryState, ReminderKind


class ReminderDelivery(models.Model):
    """One reminder email to one recipient for one milestone and offset: claimed before sending,
    marked sent after, so a retried or duplicated task never sends it twice."""

    class Anchor(models.TextChoices):
        FREEZE = "freeze", "Before the freeze"
        EXCEPTION_CLOSE = "exception_close", "Before the exception window closes"
        #: An approved exception request's own deadline (a personal note to the KEP's people; `due_at` plus
        #: `offset_hours` is that deadline).
        EXCEPTION_DEADLINE = "exception_deadline", "Before an exception request's deadline"
        #: "Retro input is open", to a SIG's list and Slack channel: at the cycle's midpoint, and a week before the
        #: retro meeting (`retros.selectors.retro_input_times`). Hung on the release-day milestone (else the retro
        #: milestone); offset 0, `due_at` is the instant.
        RETRO_MIDPOINT = "retro_midpoint", "Retro input is open (midpoint of the cycle)"
        RETRO_WEEK_BEFORE = "retro_week_before", "Retro input is open (a week before the retro)"

    milestone = models.ForeignKey("releases.Milestone", on_delete=models.CASCADE, related_name="reminder_deliveries")
    anchor = models.CharField(max_length=20, choices=Anchor.choices, default=Anchor.FREEZE)
    offset_hours = models.IntegerField(help_text="Hours before the anchor; 0 is the moment itself.")
    kind = models.CharField(max_length=20, choices=ReminderKind.choices)
    recipient = models.EmailField()
    person = models.ForeignKey("community.Person", on_delete=models.SET_NULL, null=True, blank=True)
    state = models.CharField(max_length=20, choices=DeliveryState.choices, default=DeliveryState.CLAIMED)
    due_at = models.DateTimeField()
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    message_id = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    #: When a refused (failed) delivery is handed out again by the next planning run; empty: no automatic retry
    #: left (the admin's "Retry now" still can).
    retry_at = models.DateTimeField(null=True, blank=True)
    #: How many times the server refused it for good (5xx) or its transient retries ran out; sets the back-off.
    refusals = models.PositiveIntegerField(default=0)

    class Meta:
        # Kept from the model's first home (releases): the rows stay where they are.
        db_table = "releases_reminderdelivery"
        ordering = ["-due_at", "recipient"]
        verbose_name_plural = "reminder deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["milestone", "anchor", "offset_hours", "kind", "recipient"],
                name="delivery_once_per_recipient",
                violation_error_message="This reminder was already sent to this recipient.",
            ),
            models.CheckConstraint(
                condition=models.Q(state__in=DeliveryState.values),
                name="delivery_state_valid",
                violation_error_message="Unknown state.",
            ),
        ]

    def __str__(self):
        return f"{self.milestone} −{self.offset_hours}h → {self.recipient} ({self.state})"


class Unsubscription(models.Model):
    """One address that asked, with a one-click link, for no more reminders of one kind."""

    address = models.EmailField(help_text="Stored in lower case.")
    kind = models.CharField(max_length=20, choices=ReminderKind.choices)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        # Kept from the model's first home (people): the rows stay where they are.
        db_table = "people_unsubscription"
        ordering = ["-at"]
        constraints = [
            models.UniqueConstraint(
                Lower("address"),
                "kind",
                name="unsubscription_once_per_address_kind",
                violation_error_message="This address is already unsubscribed from these reminders.",
            ),
            models.CheckConstraint(
                condition=models.Q(kind__in=ReminderKind.values),
                name="unsubscription_kind_valid",
                violation_error_message="Unknown kind of reminder.",
            ),
        ]

    def __str__(self):
        return f"{self.address} unsubscribed from {self.get_kind_display()}"


class SlackWebhook(models.Model):
    """A SIG's Slack incoming webhook: where its freeze digest is posted, beside the mailing list.

    The URL is a credential: it is stored encrypted (`channels`), and shown back only as `url_hint`. A webhook
    that Slack says is gone (404/410, `no_service`, `channel_is_archived`, ...) is turned off by the sender with
    the reason, and the admin warns about it; a curator sets a new URL (which turns it on again)."""

    sig = models.OneToOneField("community.Sig", on_delete=models.CASCADE, related_name="slack_webhook")
    url_encrypted = models.TextField(editable=False)
    url_hint = models.CharField(max_length=200, editable=False, help_text="Host and last four characters.")
    channel = models.CharField(max_length=100, blank=True, help_text="For people: the channel it posts to.")
    enabled = models.BooleanField(default=True)
    disabled_reason = models.TextField(blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        # Kept from the model's first home (people): the rows stay where they are.
        db_table = "people_slackwebhook"
        ordering = ["sig"]
        verbose_name = "Slack webhook"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(enabled=True) | ~models.Q(disabled_reason=""),
                name="slack_webhook_disabled_with_reason",
                violation_error_message="A disabled Slack webhook says why.",
            ),
        ]

    def __str__(self):
        return f"Slack webhook of {self.sig} ({self.url_hint})"

    def get_absolute_url(self):
        return reverse("admin:reminders_slackwebhook_change", args=[self.pk])

    @property
    def url(self) -> str:
        from .webhook_urls import decrypt_url

        return decrypt_url(self.url_encrypted)
