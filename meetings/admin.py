from django.contrib import admin
from django.db.models import Count

from community.admin_scope import SigScopedAdminMixin

from .models import AgendaItem, Meeting


class AgendaItemInline(admin.StackedInline):
    model = AgendaItem
    extra = 0
    fields = ["order", "title", "presenters_text", "presenters", "body", "keps", "links", "related_release"]
    autocomplete_fields = ["presenters", "keps", "related_release"]


@admin.register(Meeting)
class MeetingAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    list_display = ["date", "sig", "title", "cancelled", "item_count", "open_prs", "prs_created", "prs_merged"]
    list_filter = ["sig", "cancelled"]
    search_fields = ["title", "agenda_items__title"]
    date_hierarchy = "date"
    autocomplete_fields = ["sig"]
    inlines = [AgendaItemInline]
    list_select_related = ["sig"]
    actions = ["mark_cancelled"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(item_count=Count("agenda_items"))

    @admin.display(ordering="item_count", description="Agenda items")
    def item_count(self, obj):
        return obj.item_count

    @admin.action(description="Mark selected meetings cancelled", permissions=["change"])
    def mark_cancelled(self, request, queryset):
        changed = list(queryset.filter(cancelled=False))
        Meeting.objects.filter(pk__in=[row.pk for row in changed]).update(cancelled=True)
        self.log_action_changes(request, changed, "Marked cancelled (bulk action).")
        self.message_user(request, f"{len(changed)} meetings marked cancelled.")


@admin.register(AgendaItem)
class AgendaItemAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    sig_lookup = "meeting__sig"
    sig_scoped_fields = {"meeting": "sig"}
    list_display = ["title", "meeting", "presenters_text", "related_release"]
    list_filter = ["meeting__sig", "related_release"]
    search_fields = ["title", "body", "presenters_text", "=keps__number"]
    autocomplete_fields = ["meeting", "presenters", "keps", "related_release"]
    list_select_related = ["meeting__sig", "related_release"]
