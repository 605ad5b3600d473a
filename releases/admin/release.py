"""Releases and their milestones, and the figures computed for them."""

from django.contrib import admin
from django.db.models import Count, Q

from community.admin_scope import SigScopedAdminMixin, SigScopedInlineMixin
from community.choices import SigRole
from core.admin import GuardedActionsMixin

from ..choices import EnhancementStatus
from ..models import Milestone, Release, ReleaseStats, TrackedEnhancement
from ..services import release_stats_compute
from .read_only_records import ReadOnlyRecordAdmin


class MilestoneInline(SigScopedInlineMixin, admin.TabularInline):
    """On a release every lead edits: release-wide milestones and their own SIG's, never another SIG's."""

    editing_roles = (SigRole.LEAD,)
    sig_optional = True
    model = Milestone
    extra = 0
    fields = ["kind", "label", "at", "all_day", "quoted_timezone", "sig", "sends_reminders", "exception_deadline"]
    autocomplete_fields = ["sig"]


class TrackedEnhancementInline(SigScopedInlineMixin, admin.TabularInline):
    """A compact, read-only list on the release page: statuses change on each row's own page (or the list's
    status column), where the tracking service keeps their history."""

    model = TrackedEnhancement
    extra = 0
    fields = ["kep", "sig", "target_stage", "status", "enhancements_contact"]
    readonly_fields = fields
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Release)
class ReleaseAdmin(GuardedActionsMixin, admin.ModelAdmin):
    list_display = [
        "version",
        "name",
        "state",
        "cycle_start",
        "planned_release_date",
        "actual_release_date",
        "tracked",
        "done",
    ]
    list_filter = ["state"]
    search_fields = ["version", "name"]
    ordering = ["-major", "-minor"]
    inlines = [MilestoneInline, TrackedEnhancementInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                tracked_count=Count("tracked_enhancements"),
                done_count=Count("tracked_enhancements", filter=Q(tracked_enhancements__status=EnhancementStatus.DONE)),
            )
        )

    @admin.display(ordering="tracked_count", description="Tracked")
    def tracked(self, obj):
        return obj.tracked_count

    @admin.display(ordering="done_count", description="Done")
    def done(self, obj):
        return obj.done_count

    actions = ["recompute_stats"]

    @admin.action(description="Recompute stats of the selected releases", permissions=["change"])
    def recompute_stats(self, request, queryset):
        rows = release_stats_compute(release_ids=list(queryset.values_list("pk", flat=True)))
        releases = len({row.release_id for row in rows})
        self.log_action_changes(request, queryset, "Recomputed stats (bulk action).")
        self.message_user(request, f"Stats recomputed for {releases} release(s) ({len(rows)} rows).")


@admin.register(Milestone)
class MilestoneAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    """A SIG's own milestone (a SIG soft freeze) is seen and changed only by leads of that SIG; release-wide
    milestones (no SIG) are seen by all staff and changed by any SIG lead, as releases are. Liaisons and
    viewers read."""

    editing_roles = (SigRole.LEAD,)
    sig_optional = True
    list_display = ["release", "kind", "label", "at", "all_day", "quoted_timezone", "sig", "sends_reminders"]
    list_filter = ["kind", "sends_reminders", "release", "sig"]
    search_fields = ["label", "source_text", "release__version"]
    date_hierarchy = "at"
    autocomplete_fields = ["release", "sig"]
    list_select_related = ["release", "sig"]
    actions = ["disable_reminders", "enable_reminders"]

    @admin.action(description="Stop reminders for the selected milestones", permissions=["change"])
    def disable_reminders(self, request, queryset):
        self._set_reminders(request, queryset, False)

    @admin.action(description="Send reminders for the selected milestones", permissions=["change"])
    def enable_reminders(self, request, queryset):
        self._set_reminders(request, queryset, True)

    def _set_reminders(self, request, queryset, on: bool):
        changed = list(queryset.exclude(sends_reminders=on))
        Milestone.objects.filter(pk__in=[row.pk for row in changed]).update(sends_reminders=on)
        self.log_action_changes(request, changed, f"Reminders {'on' if on else 'off'} (bulk action).")
        self.message_user(request, f"Reminders {'on' if on else 'off'} for {len(changed)} milestones.")


@admin.register(ReleaseStats)
class ReleaseStatsAdmin(ReadOnlyRecordAdmin):
    """Written only by the stats service (`compute_stats`, the queued recompute, the release action)."""

    list_display = ["release", "sig", "source", "tracked", "done", "deferred", "removed", "merge_rate", "computed_at"]
    list_filter = ["source", "sig"]
    search_fields = ["release__version"]
    list_select_related = ["release", "sig"]
