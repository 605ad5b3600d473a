"""The reminders' admin forms."""

from django import forms

from .models import SlackWebhook
from .webhook_urls import validate_webhook_url


class SlackWebhookForm(forms.ModelForm):
    """The admin's form: the URL is write-only (never rendered back, not even masked); leave it empty to keep it."""

    new_url = forms.CharField(
        required=False,
        label="Webhook URL",
        max_length=500,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off", "size": 80}),
        help_text="Slack → Apps → Incoming Webhooks → Add New Webhook to Workspace; paste the URL here. "
        "Stored encrypted and never shown again; leave empty to keep the current one. "
        "Setting one turns the channel on.",
    )

    class Meta:
        model = SlackWebhook
        fields = ["sig", "channel", "enabled"]

    def clean_new_url(self):
        url = self.cleaned_data["new_url"].strip()
        if url:
            validate_webhook_url(url)
        elif not (self.instance and self.instance.pk):
            raise forms.ValidationError("A new Slack webhook needs its URL.")
        return url

    def clean(self):
        cleaned = super().clean()
        if not cleaned.get("new_url") and cleaned.get("enabled") is False and not self.instance.disabled_reason:
            # The database asks a disabled webhook for a reason.
            self.instance.disabled_reason = "turned off in the admin"
        return cleaned
