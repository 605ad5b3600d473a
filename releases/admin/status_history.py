"""The status history of tracked enhancements: read-only, whole (corrections and withdrawals shown)."""

from django.contrib import admin

from community.admin_scope import SigScopedAdminMixin

from ..models import EnhancementStatusChange
from .read_only_records import ReadOnlyRecordAdmin


class StatusChangeInline(admin.TabularInline):
    model = EnhancementStatusChange
    extra = 0
    can_delete = False
    fields = ["from_status", "to_status", "changed_at", "assumed", "author", "source", "link", "note"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class WholeRecordMixin:
    """The whole history record, superseded rows and withdrawals included (the default manager hides them):
    the admin is where curators audit corrections. Below the SIG scope in the MRO, which filters this."""

    def get_queryset(self, request):
        queryset = EnhancementStatusChange.all_objects.get_queryset()
        ordering = self.get_ordering(request)
        return queryset.order_by(*ordering) if ordering else queryset


@admin.register(EnhancementStatusChange)
class EnhancementStatusChangeAdmin(SigScopedAdminMixin, WholeRecordMixin, ReadOnlyRecordAdmin):
    sig_lookup = "tracked_enhancement__sig"
    sig_scoped_fields = {"tracked_enhancement": "sig"}
    list_display = [
        "tracked_enhancement",
        "from_status",
        "to_status",
        "changed_at",
        "assumed",
        "author",
        "source",
        "supersedes",
        "withdrawn",
    ]
    list_filter = ["to_status", "source", "assumed", "withdrawn", "tracked_enhancement__release"]
    search_fields = ["=tracked_enhancement__kep__number", "author", "note"]
    date_hierarchy = "changed_at"
    list_select_related = ["tracked_enhancement__release", "tracked_enhancement__kep"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return ReadOnlyRecordAdmin.has_delete_permission(self, request, obj)
