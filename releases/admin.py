from django.contrib import admin
from django.db import transaction
from django.db.models import Count, Q

from keps.choices import SigRole
from sigtracker.admin import GuardedActionsMixin, SigScopedAdminMixin, SigScopedInlineMixin

from .choices import EnhancementStatus
from .models import (
    EnhancementStatusChange,
    Milestone,
    Release,
    ReleaseStats,
    ReminderDelivery,
    RetroItem,
    Retrospective,
    TrackedEnhancement,
)
from .services import release_stats_compute, tracked_enhancement_bulk_set_status, tracked_enhancement_set_status


class MilestoneInline(SigScopedInlineMixin, admin.TabularInline):
    """On a release every lead edits: release-wide milestones and their own SIG's, never another SIG's."""

    editing_roles = (SigRole.LEAD,)
    sig_optional = True
    model = Milestone
    extra = 0
    fields = ["kind", "label", "at", "all_day", "quoted_timezone", "sig", "sends_reminders", "exception_deadline"]
    autocomplete_fields = ["sig"]


class TrackedEnhancementInline(SigScopedInlineMixin, admin.TabularInline):
    model = TrackedEnhancement
    extra = 0
    fields = ["kep", "sig", "type", "target_stage", "status", "enhancements_contact"]
    autocomplete_fields = ["kep", "sig", "enhancements_contact"]
    show_change_link = True


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


class StatusChangeInline(admin.TabularInline):
    model = EnhancementStatusChange
    extra = 0
    can_delete = False
    readonly_fields = ["from_status", "to_status", "changed_at", "changed_by", "author", "note"]

    def has_add_permission(self, request, obj=None):
        return False


def _status_action(status: EnhancementStatus):
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


@admin.register(TrackedEnhancement)
class TrackedEnhancementAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    list_display = ["release", "kep", "sig", "type", "target_stage", "status", "enhancements_contact", "updated_at"]
    list_filter = ["release", "sig", "status", "type", "target_stage"]
    search_fields = ["=kep__number", "kep__title", "notes", "enhancements_contact__github"]
    autocomplete_fields = ["release", "kep", "sig", "enhancements_contact", "assignee"]
    list_select_related = ["release", "kep", "sig", "enhancements_contact"]
    inlines = [StatusChangeInline]
    actions = [
        _status_action(EnhancementStatus.REMOVED),
        _status_action(EnhancementStatus.DEFERRED),
        _status_action(EnhancementStatus.DONE),
        _status_action(EnhancementStatus.TRACKED_ENHANCEMENTS),
        _status_action(EnhancementStatus.TRACKED_CODE),
    ]

    def save_model(self, request, obj, form, change):
        # Status changes go through the service so that every change is kept in history.
        status = obj.status
        if change and "status" in form.changed_data:
            obj.status = form.initial.get("status", status)
            obj.save()
            tracked_enhancement_set_status(tracked_enhancement=obj, status=status, user=request.user)
        elif not change:
            obj.save()
            EnhancementStatusChange.objects.create(
                tracked_enhancement=obj, to_status=status, changed_by=request.user, author=request.user.get_username()
            )
        else:
            obj.save()


@admin.register(EnhancementStatusChange)
class EnhancementStatusChangeAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    sig_lookup = "tracked_enhancement__sig"
    list_display = ["tracked_enhancement", "from_status", "to_status", "changed_at", "author"]
    list_filter = ["to_status", "tracked_enhancement__release"]
    search_fields = ["=tracked_enhancement__kep__number", "author", "note"]
    date_hierarchy = "changed_at"
    autocomplete_fields = ["tracked_enhancement"]
    list_select_related = ["tracked_enhancement__release", "tracked_enhancement__kep"]


class RetroItemInline(admin.TabularInline):
    model = RetroItem
    extra = 0
    fields = ["category", "order", "text", "owner", "status", "due_release"]
    autocomplete_fields = ["owner", "due_release"]


@admin.register(Retrospective)
class RetrospectiveAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    list_display = ["release", "sig", "date", "recorded_tracked", "recorded_merged"]
    list_filter = ["sig", "release"]
    search_fields = ["release__version", "summary"]
    autocomplete_fields = ["release", "sig"]
    inlines = [RetroItemInline]
    list_select_related = ["release", "sig"]


@admin.register(RetroItem)
class RetroItemAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    sig_lookup = "retrospective__sig"
    list_display = ["text", "category", "retrospective", "owner", "status", "due_release"]
    list_filter = ["category", "status", "retrospective__release", "due_release"]
    search_fields = ["text", "owner__github"]
    autocomplete_fields = ["retrospective", "owner", "due_release"]
    list_select_related = ["retrospective__release", "retrospective__sig", "owner", "due_release"]
    actions = ["mark_done", "mark_dropped"]

    @admin.action(description="Mark selected action items done", permissions=["change"])
    def mark_done(self, request, queryset):
        self.message_user(request, f"{self._set_status(request, queryset, 'done')} marked done.")

    @admin.action(description="Mark selected action items dropped", permissions=["change"])
    def mark_dropped(self, request, queryset):
        self.message_user(request, f"{self._set_status(request, queryset, 'dropped')} dropped.")

    def _set_status(self, request, queryset, status: str) -> int:
        changed = list(queryset.filter(category="action_item").exclude(status=status))
        RetroItem.objects.filter(pk__in=[row.pk for row in changed]).update(status=status)
        self.log_action_changes(request, changed, f"Status → {status} (bulk action).")
        return len(changed)


@admin.register(ReleaseStats)
class ReleaseStatsAdmin(admin.ModelAdmin):
    list_display = ["release", "sig", "source", "tracked", "done", "deferred", "removed", "merge_rate", "computed_at"]
    list_filter = ["source", "sig"]
    search_fields = ["release__version"]
    list_select_related = ["release", "sig"]
    readonly_fields = ["computed_at"]


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
    ]
    list_filter = ["state", "kind", "anchor"]
    search_fields = ["recipient", "message_id"]
    date_hierarchy = "due_at"
    list_select_related = ["milestone__release"]
    autocomplete_fields = ["milestone", "person"]
