"""A person's own account: the GitHub sign-in linked to them, their reminder preferences, the secret of their
calendar feed, and the log of every change they (or a link they clicked) made. (The one-click unsubscribes
themselves are the reminders app's, `reminders.models.Unsubscription`.)"""

import secrets
import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone

from community.models import Person

from .choices import ChangeSource


def new_calendar_secret() -> str:
    return secrets.token_urlsafe(24)


def validate_time_zone(value: str) -> None:
    if value and value not in zoneinfo.available_timezones():
        raise ValidationError(f"{value!r} is not an IANA time zone (e.g. Europe/Berlin).")


def validate_offsets(value) -> None:
    if not isinstance(value, list) or not all(isinstance(h, int) and not isinstance(h, bool) and h >= 0 for h in value):
        raise ValidationError("A list of whole numbers of hours ≥ 0.")


class Profile(models.Model):
    """What a person set for themselves. Made when they first sign in (or first change a preference);
    a person without one gets every reminder by email, as before sign-in existed."""

    person = models.OneToOneField(Person, on_delete=models.CASCADE, related_name="profile")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="person_profile",
        help_text="The account that signed in with this person's GitHub handle.",
    )
    # GitHub logins are reused (a rename frees a handle, case is ignored), account ids never are: a profile, with
    # its calendar secret and the person's email, belongs to the one account id that first signed in for it.
    github_id = models.CharField(
        max_length=40,
        null=True,
        blank=True,
        unique=True,
        editable=False,
        help_text="The GitHub account id bound to this profile; another id with the same login is refused.",
    )
    email_reminders = models.BooleanField(default=True, help_text="Personal reminder notes by email.")
    slack_dm = models.BooleanField(default=False, help_text="Personal reminder notes as a Slack direct message.")
    reminder_offsets = models.JSONField(
        default=list,
        blank=True,
        validators=[validate_offsets],
        help_text="Hours before a freeze at which they want a note; empty: every offset their SIGs use.",
    )
    time_zone = models.CharField(max_length=64, blank=True, validators=[validate_time_zone])
    calendar_secret = models.CharField(max_length=64, unique=True, default=new_calendar_secret)

    class Meta:
        ordering = ["person"]

    def __str__(self):
        return f"profile of {self.person}"

    def get_absolute_url(self):
        return reverse("people:me")

    @property
    def zone(self):
        return zoneinfo.ZoneInfo(self.time_zone) if self.time_zone else None


class PreferenceChange(models.Model):
    """Append-only log of a change to someone's reminder settings: who, when, what, from where."""

    person = models.ForeignKey(Person, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    address = models.EmailField(blank=True, help_text="For unsubscribes: the address the link was made for.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    at = models.DateTimeField(default=timezone.now)
    source = models.CharField(max_length=20, choices=ChangeSource.choices)
    field = models.CharField(max_length=64)
    old = models.TextField(blank=True)
    new = models.TextField(blank=True)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} {self.field}: {self.old!r} → {self.new!r}"
