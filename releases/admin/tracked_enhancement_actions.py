"""The bulk actions of the freeze-day board: mark the ticked rows with a status, or ask an exception for them."""

from django.contrib import admin, messages
from django.db import transaction
from django.http import HttpResponseRedirect
from django.urls import reverse

from ..choices import EnhancementStatus
from ..services import tracked_enhancement_bulk_set_status
from ..services.exceptions import exception_request_create


def mark_status_action(status: EnhancementStatus):
    """The bulk action "Mark selected as <status>": through the tracking service, which writes each row's history."""

    @transaction.atomic
    def action(modeladmin, request, queryset):
        # Lock the rows first so that the log names exactly the rows the service changes, with their old status.
        before = {
            row.pk: row for row in queryset.select_related(None).select_for_update(of=("self",)) if row.status != status
        }
        changed = tracked_enhancement_bulk_set_status(tracked_enhancements=queryset, status=status, user=request.user)
        modeladmin.log_action_changes(
            request,
            before.values(),
            lambda row: f"Status {row.get_status_display()} → {status.label} (bulk action).",
        )
        modeladmin.message_user(request, f"{changed} enhancements marked “{status.label}”.")

    action.__name__ = f"mark_{status.value}"
    action.short_description = f"Mark selected as “{status.label}”"
    action.allowed_permissions = ("change",)
    return action


@admin.action(description="Request an exception (pending, asked now)", permissions=["change"])
def request_exception(modeladmin, request, queryset):
    """Freeze day in a few clicks: tick the row, pick this, Go. One pending request per row for the freeze it
    missed; on one row, its page opens at the requests to add the thread and deadline."""
    rows = list(queryset.select_related("release", "kep"))
    made = []
    for row in rows:
        created = exception_request_create(tracked_enhancement=row, user=request.user)
        if created is None:
            modeladmin.message_user(
                request, f"{row.subject} already asked for an exception to that freeze.", messages.WARNING
            )
        else:
            made.append((row, created))
    modeladmin.log_action_changes(
        request,
        [row for row, _ in made],
        lambda row: f"Exception requested ({dict(made)[row].get_freeze_display()}, pending; bulk action).",
    )
    for row, created in made:
        modeladmin.message_user(
            request, f"{row.subject}: {created.get_freeze_display().lower()} exception requested (pending)."
        )
    if len(rows) == 1 and made:
        url = reverse("admin:releases_trackedenhancement_change", args=[rows[0].pk])
        return HttpResponseRedirect(f"{url}#exceptions-group")
    return None
