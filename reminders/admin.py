"""The reminders' admin: the delivery rows, with the refused ones' "Retry now"."""

from django.contrib import admin, messages
from django.db import transaction
from django.utils import timezone

from keps.admin_scope import SigScopedAdminMixin
from keps.choices import SigRole
from releases.models import ReminderDelivery

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
