"""Retrospectives, with one inline per category of their items, and the items (action items above all)."""

from django import forms
from django.contrib import admin

from community.admin_scope import SigScopedAdminMixin

from .choices import ActionStatus, RetroCategory, StatusSource
from .models import ActionItemStatusChange, RetroItem, Retrospective
from .services.actions import action_item_set_status


def _status_through_history(request, item: RetroItem, old_status: str) -> None:
    """A status the admin form changed is written through the one write path, which keeps the history row."""
    new_status = item.status
    if item.category != RetroCategory.ACTION_ITEM or not item.pk or new_status == old_status:
        return
    item.status = old_status
    action_item_set_status(
        item=item, status=new_status, source=StatusSource.ADMIN, author=request.user.get_username(), note="admin"
    )


class StatusChangeInline(admin.TabularInline):
    """An action item's status history: append-only, so shown and never edited here."""

    model = ActionItemStatusChange
    extra = 0
    can_delete = False
    fields = readonly_fields = ["at", "old_status", "new_status", "source", "author", "note"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class RetroItemCategoryForm(forms.ModelForm):
    """One category's items: the category is the inline's, never typed; only action items have a status."""

    category = None  # set by each inline's form class

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.category = self.category
        if "text" in self.fields:
            self.fields["text"].widget = forms.Textarea(attrs={"rows": 2, "cols": 60})
        if "status" in self.fields:
            self.fields["status"].required = True
            self.fields["status"].choices = ActionStatus.choices
            self.fields["status"].initial = ActionStatus.OPEN
        elif self.instance.pk is None:
            self.instance.status = ""


def _retro_inline(category: RetroCategory, fields: list[str]):
    form = type(f"{category.name.title()}Form", (RetroItemCategoryForm,), {"category": category})
    form.Meta = type("Meta", (), {"model": RetroItem, "fields": fields})

    class Inline(admin.TabularInline):
        model = RetroItem
        extra = 0
        verbose_name = category.label.lower()
        verbose_name_plural = category.label + ("s" if category == RetroCategory.ACTION_ITEM else "")
        autocomplete_fields = [name for name in ("owner", "due_release") if name in fields]

        def get_queryset(self, request):
            return super().get_queryset(request).filter(category=category)

    Inline.form = form
    Inline.fields = fields
    Inline.__name__ = Inline.__qualname__ = f"{category.name.title().replace('_', '')}Inline"
    return Inline


#: A form per category: went well and to improve are text; action items have an owner, a
#: status (open unless said otherwise) and the release they are due in.
WentWellInline = _retro_inline(RetroCategory.WENT_WELL, ["text", "order"])
ToImproveInline = _retro_inline(RetroCategory.TO_IMPROVE, ["text", "order"])
DiscussInline = _retro_inline(RetroCategory.DISCUSS, ["text", "order"])
ActionItemInline = _retro_inline(
    RetroCategory.ACTION_ITEM, ["text", "owner", "status", "due_release", "issue_url", "order"]
)


@admin.register(Retrospective)
class RetrospectiveAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    list_display = ["release", "sig", "date", "recorded_tracked", "recorded_merged"]
    list_filter = ["sig", "release"]
    search_fields = ["release__version", "summary"]
    autocomplete_fields = ["release", "sig"]
    # "To discuss" last: the older inlines keep their form prefixes (items, items-2, items-3).
    inlines = [WentWellInline, ToImproveInline, ActionItemInline, DiscussInline]
    list_select_related = ["release", "sig"]

    def save_formset(self, request, form, formset, change):
        before = {
            f.instance.pk: f.initial.get("status", "") for f in formset.forms if f.instance.pk and "status" in f.fields
        }
        items = formset.save(commit=False)
        for item in items:
            old = before.get(item.pk, item.status)
            new = item.status
            if item.pk and old != new:
                item.status = old
                item.save()
                item.status = new
                _status_through_history(request, item, old)
            else:
                item.save()
        for obj in formset.deleted_objects:
            obj.delete()
        formset.save_m2m()


@admin.register(RetroItem)
class RetroItemAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    sig_lookup = "retrospective__sig"
    sig_scoped_fields = {"retrospective": "sig"}
    list_display = ["text", "category", "retrospective", "owner", "status", "due_release", "hidden_reason"]
    list_filter = ["category", "status", "retrospective__release", "due_release"]
    readonly_fields = [
        "author",
        "created_at",
        "updated_at",
        "hidden_at",
        "merged_into",
        "from_item",
        "issue_etag",
        "issue_checked_at",
    ]
    inlines = [StatusChangeInline]

    def save_model(self, request, obj, form, change):
        old = form.initial.get("status", obj.status) if change else obj.status
        new = obj.status
        if change and old != new:
            obj.status = old
            super().save_model(request, obj, form, change)
            obj.status = new
            _status_through_history(request, obj, old)
        else:
            super().save_model(request, obj, form, change)

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
        for row in changed:
            action_item_set_status(
                item=row, status=status, source=StatusSource.ADMIN, author=request.user.get_username(), note="bulk"
            )
        self.log_action_changes(request, changed, f"Status → {status} (bulk action).")
        return len(changed)
