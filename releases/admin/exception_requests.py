"""Exception requests: across releases, and inline on their tracked enhancement's page."""

from django import forms
from django.contrib import admin
from django.db import models

from community.admin_scope import SigScopedAdminMixin

from ..models import EnhancementException


class ExceptionInline(admin.TabularInline):
    """The KEP's exception requests, one per freeze (the handbook's "Exception Requests" view). The board status
    follows the decision through the status field above (exception pending / approved, or removed)."""

    model = EnhancementException
    extra = 0
    fields = ["freeze", "requested_at", "thread_url", "decision", "decided_at", "deadline", "notes"]
    formfield_overrides = {
        models.TextField: {"widget": forms.Textarea(attrs={"rows": 2, "cols": 18})},
        models.URLField: {"widget": forms.URLInput(attrs={"size": 18})},
    }


@admin.register(EnhancementException)
class EnhancementExceptionAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    """Every exception request across releases, for the release team's "Exception Requests" view; each row is
    also on its tracked enhancement's page. Scoped to the SIG of that enhancement."""

    sig_lookup = "tracked_enhancement__sig"
    sig_scoped_fields = {"tracked_enhancement": "sig"}
    list_display = [
        "release",
        "tracked_enhancement",
        "kep_number",
        "freeze",
        "decision",
        "requested_at",
        "decided_at",
        "deadline",
        "source",
    ]
    list_filter = ["decision", "freeze", "source", "release"]
    search_fields = [
        "=kep_number",
        "=tracked_enhancement__kep__number",
        "title",
        "tracked_enhancement__kep__title",
        "notes",
    ]
    autocomplete_fields = ["tracked_enhancement"]
    list_select_related = ["release", "tracked_enhancement__release", "tracked_enhancement__kep"]
    date_hierarchy = "requested_at"
