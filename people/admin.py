from django.contrib import admin, messages
from django.utils import timezone

from keps.admin_scope import SigScopedAdminMixin
from keps.choices import SigRole
from reminders.channels import slack_webhook_set_url
from reminders.forms import SlackWebhookForm

from .models import PreferenceChange, Profile, SlackWebhook, Unsubscription


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["person", "user", "email_reminders", "slack_dm", "time_zone"]
    search_fields = ["person__github", "user__username"]
    # The calendar secret is a credential: never shown, reset by its owner on /me/.
    exclude = ["calendar_secret"]
    raw_id_fields = ["person", "user"]


@admin.register(Unsubscription)
class UnsubscriptionAdmin(admin.ModelAdmin):
    list_display = ["address", "kind", "at"]
    list_filter = ["kind"]
    search_fields = ["address"]


@admin.register(PreferenceChange)
class PreferenceChangeAdmin(admin.ModelAdmin):
    """Append-only: read here, written by the people app's services."""

    list_display = ["at", "person", "address", "field", "old", "new", "source", "user"]
    list_filter = ["source", "field"]
    search_fields = ["person__github", "address"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(SlackWebhook)
class SlackWebhookAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    """A SIG's Slack channel for the freeze digest. The URL is write-only; the list warns about channels that Slack
    said are gone (turned off by the sender, with Slack's answer), until a curator sets a new URL. A SIG's leads
    manage its channel; nobody else sees it (the URL is a credential)."""

    editing_roles = (SigRole.LEAD,)

    form = SlackWebhookForm
    list_display = ["sig", "channel", "url_hint", "enabled", "status"]
    list_filter = ["enabled"]
    search_fields = ["sig__slug", "channel"]
    readonly_fields = ["url_hint", "disabled_reason", "disabled_at", "updated_at"]
    fields = ["sig", "channel", "new_url", "url_hint", "enabled", "disabled_reason", "disabled_at", "updated_at"]
    raw_id_fields = ["sig"]

    @admin.display(description="Status")
    def status(self, obj):
        if obj.enabled:
            return "posting"
        return (
            f"⚠ off since {obj.disabled_at:%Y-%m-%d %H:%M} UTC: {obj.disabled_reason}"
            if obj.disabled_at
            else (f"⚠ off: {obj.disabled_reason}")
        )

    def changelist_view(self, request, extra_context=None):
        for webhook in SlackWebhook.objects.filter(enabled=False).select_related("sig"):
            messages.warning(
                request,
                f"The Slack channel of {webhook.sig} is off ({webhook.disabled_reason}); its digests go only by "
                "email until a new webhook URL is set.",
            )
        return super().changelist_view(request, extra_context)

    def save_model(self, request, obj, form, change):
        url = form.cleaned_data.get("new_url")
        if url:
            slack_webhook_set_url(webhook=obj, url=url)
            return
        if obj.enabled:
            obj.disabled_reason, obj.disabled_at = "", None
        elif obj.disabled_at is None:
            obj.disabled_at = timezone.now()
        super().save_model(request, obj, form, change)
