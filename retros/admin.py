"""Retrospectives, with one inline per category of their items, and the items (action items above all)."""

from django import forms
from django.contrib import admin

from community.admin_scope import SigScopedAdminMixin

from .choices import ActionStatus, RetroCategory
from .models import RetroItem, Retrospective


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
ActionItemInline = _retro_inline(RetroCategory.ACTION_ITEM, ["text", "owner", "status", "due_release", "order"])


@admin.register(Retrospective)
class RetrospectiveAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    list_display = ["release", "sig", "date", "recorded_tracked", "recorded_merged"]
    list_filter = ["sig", "release"]
    search_fields = ["release__version", "summary"]
    autocomplete_fields = ["release", "sig"]
    inlines = [WentWellInline, ToImproveInline, ActionItemInline]
    list_select_related = ["release", "sig"]


@admin.register(RetroItem)
class RetroItemAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    sig_lookup = "retrospective__sig"
    sig_scoped_fields = {"retrospective": "sig"}
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
