"""The reminders' admin: the delivery rows (with the refused ones' "Retry now"), one-click unsubscribes, and SIGs'
Slack webhooks."""

from django.contrib import admin, messages
from django.db import transaction
from django.utils import timezone

from community.admin_scope import SigScopedAdminMixin
from community.choices import SigRole

from .channels import slack_webhook_set_url
from .forms import SlackWebhookForm
from .models import ReminderDelivery, SlackWebhook, Unsubscription
from .refusals import reminder_deliveries_retry
from .tasks import deliver_reminders


@admin.register(ReminderDelivery)
class ReminderDeliveryAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    """Deliveries follow their milestone: a SIG freeze's are its leads', release-wide ones any lead's."""

    sig_lookup = "milestone__sig"
    editing_roles = (SigRole.LEAD,)
    sig_optional = True
    list_display = [
        "milestone",
        "anchor",
        "offset_hours",
        "kind",
        "recipient",
        "state",
        "due_at",
        "sent_at",
        "attempts",
        "server_answer",
        "retry_at",
    ]
    list_filter = ["state", "kind", "anchor"]
    search_fields = ["recipient", "message_id"]
    date_hierarchy = "due_at"
    list_select_related = ["milestone__release"]
    autocomplete_fields = ["milestone", "person"]
    actions = ["retry_now"]

    @admin.display(description="server's answer / reason")
    def server_answer(self, obj):
        return obj.error if len(obj.error) <= 120 else f"{obj.error[:119]}…"

    @admin.action(description="Retry now the selected failed deliveries", permissions=["change"])
    def retry_now(self, request, queryset):
        now = timezone.now()
        outcome = reminder_deliveries_retry(delivery_ids=list(queryset.values_list("pk", flat=True)), now=now)
        if outcome.handed_out:
            # Sent by a worker (or in-process without a broker) once this request's changes are committed.
            handed_out = outcome.handed_out
            transaction.on_commit(lambda: deliver_reminders.delay(handed_out, now.isoformat()))
            self.log_action_changes(
                request, list(ReminderDelivery.objects.filter(pk__in=handed_out)), "Retry now (bulk action)."
            )
            self.message_user(request, f"{len(handed_out)} delivery(ies) handed out again for sending.")
        for pk, reason in outcome.refused.items():
            self.message_user(request, f"Delivery {pk} not retried: {reason}.", level=messages.WARNING)


@admin.register(Unsubscription)
class UnsubscriptionAdmin(admin.ModelAdmin):
    list_display = ["address", "kind", "at"]
    list_filter = ["kind"]
    search_fields = ["address"]


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
