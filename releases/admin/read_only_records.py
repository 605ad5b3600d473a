"""The admin of records nobody types: computed figures and the status history."""

from django.contrib import admin
from django.contrib.admin.models import DELETION, LogEntry
from django.http import QueryDict


class ReadOnlyRecordAdmin(admin.ModelAdmin):
    """Computed or historical records: nobody adds or changes them here. A superuser may delete one, giving a
    reason that the admin log keeps."""

    delete_confirmation_template = "admin/releases/delete_with_reason.html"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # one at a time, each with its reason
        return actions

    def delete_view(self, request, object_id, extra_context=None):
        extra_context = {**(extra_context or {}), "reason_required": True}
        if request.method == "POST" and not request.POST.get("reason", "").strip():
            extra_context["reason_error"] = "Say why this record is deleted."
            request.POST = QueryDict()  # not confirmed: the page asks again, with the error
        return super().delete_view(request, object_id, extra_context)

    def log_deletions(self, request, queryset):
        reason = request.POST.get("reason", "").strip()
        return LogEntry.objects.log_actions(
            user_id=request.user.pk,
            queryset=queryset,
            action_flag=DELETION,
            change_message=f"Deleted: {reason}",
            single_object=len(queryset) == 1,
        )
