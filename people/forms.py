import zoneinfo

from django import forms

from .selectors import default_offsets


def _span(hours: int) -> str:
    if hours == 0:
        return "at the freeze"
    return f"{hours // 24} day{'s' if hours != 24 else ''} before" if hours % 24 == 0 else f"{hours} hours before"


class PreferencesForm(forms.Form):
    """What a person sets for themselves (people.services.preferences_update writes it, logged)."""

    email = forms.EmailField(required=False, help_text="Where personal reminders go.")
    email_reminders = forms.BooleanField(required=False, label="Reminders by email")
    # Kept as a choice, offered disabled: a direct message needs a Slack app with a bot token and each person's
    # Slack user id, which sigtracker does not have (SIG digests go to channels through incoming webhooks).
    slack_dm = forms.BooleanField(
        required=False,
        disabled=True,
        label="Reminders as a Slack direct message",
        help_text="Not available: this site sends Slack reminders to SIG channels only. Your SIG's digest may reach "
        "its channel; ask its leads.",
    )
    reminder_offsets = forms.TypedMultipleChoiceField(
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Remind me",
        help_text="None ticked: at every offset your SIGs use.",
    )
    time_zone = forms.ChoiceField(required=False, label="My time zone")
    reminders_opt_out = forms.BooleanField(required=False, label="Send me no reminders at all")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reminder_offsets"].choices = [(h, _span(h)) for h in default_offsets()]
        self.fields["time_zone"].choices = [("", "UTC and US Pacific only")] + [
            (name, name) for name in sorted(zoneinfo.available_timezones())
        ]

    def clean_reminder_offsets(self):
        return sorted(set(self.cleaned_data["reminder_offsets"]), reverse=True)
