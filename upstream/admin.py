"""Upstream sources and their runs, read-only (runs are kept as written); "Refresh now" queues a refresh of the
selected sources for whoever holds `upstream.refresh_upstreamsource` (curators; superusers)."""

from django.contrib import admin, messages
from django.db import transaction

from core.admin import GuardedActionsMixin

from .models import UpstreamRun, UpstreamSource
from .tasks import refresh_upstream


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(UpstreamSource)
class UpstreamSourceAdmin(GuardedActionsMixin, ReadOnlyAdmin):
    list_display = (
        "name",
        "status",
        "last_commit_short",
        "last_commit_date",
        "last_success_at",
        "last_run_at",
        "error",
    )
    readonly_fields = (
        "name",
        "url",
        "last_commit",
        "last_commit_date",
        "last_success_at",
        "last_run_at",
        "status",
        "error",
    )
    actions = ["refresh_now"]

    @admin.display(description="commit")
    def last_commit_short(self, obj):
        return obj.last_commit[:12]

    def has_refresh_permission(self, request, obj=None):
        return request.user.has_perm("upstream.refresh_upstreamsource")

    @admin.action(description="Refresh now", permissions=["refresh"])
    def refresh_now(self, request, queryset):
        names = sorted(queryset.values_list("name", flat=True))
        transaction.on_commit(lambda: refresh_upstream.delay(names))
        self.log_action_changes(request, queryset, "refresh queued")
        self.message_user(request, f"Refresh queued for {', '.join(names)}.", messages.SUCCESS)


@admin.register(UpstreamRun)
class UpstreamRunAdmin(ReadOnlyAdmin):
    list_display = (
        "source",
        "started_at",
        "outcome",
        "from_short",
        "to_short",
        "files_read",
        "created",
        "updated",
        "unchanged",
        "skipped",
        "duration_seconds",
    )
    list_filter = ("source", "outcome")
    readonly_fields = [field.name for field in UpstreamRun._meta.fields]
    list_select_related = ("source",)

    @admin.display(description="from")
    def from_short(self, obj):
        return obj.from_commit[:12]

    @admin.display(description="to")
    def to_short(self, obj):
        return obj.to_commit[:12]
