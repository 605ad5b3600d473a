from django.contrib import admin
from django.db.models import Count

from community.admin_scope import PublicSigScopedAdminMixin
from community.choices import SigRole
from community.models import Sig

from .models import DesignGroup, FeatureGate, Kep, KepPlanChange, PrrApproval


@admin.register(Sig)
class SigAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "kind", "in_community", "mailing_list", "kep_count"]
    list_filter = ["in_community", "kind"]
    search_fields = ["slug", "name", "label"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(kep_count=Count("owned_keps"))

    @admin.display(ordering="kep_count", description="KEPs owned")
    def kep_count(self, obj):
        return obj.kep_count


class FeatureGateInline(admin.TabularInline):
    model = FeatureGate
    extra = 0


class PrrApprovalInline(admin.TabularInline):
    model = PrrApproval
    extra = 0
    autocomplete_fields = ["approver"]


@admin.register(Kep)
class KepAdmin(PublicSigScopedAdminMixin, admin.ModelAdmin):
    """A KEP is changed by the leads and liaisons of its owning SIG; participating SIGs read it."""

    sig_lookup = "owning_sig"
    list_display = ["number", "title", "owning_sig", "stage", "status", "latest_milestone", "last_updated"]
    list_display_links = ["number", "title"]
    list_filter = ["owning_sig", "stage", "status", "disable_supported"]
    search_fields = ["=number", "title", "slug", "feature_gates__name"]
    autocomplete_fields = ["owning_sig", "participating_sigs", "authors", "reviewers", "approvers"]
    date_hierarchy = "creation_date"
    inlines = [FeatureGateInline, PrrApprovalInline]
    list_select_related = ["owning_sig"]
    fieldsets = [
        (None, {"fields": ["number", "title", "slug", "owning_sig", "participating_sigs", "tracking_issue_url"]}),
        ("State", {"fields": ["status", "stage", "disable_supported"]}),
        (
            "Milestones",
            {"fields": ["latest_milestone", "alpha_milestone", "beta_milestone", "stable_milestone"]},
        ),
        ("People", {"fields": ["authors", "reviewers", "approvers"]}),
        ("Dates and source", {"fields": ["creation_date", "last_updated", "source_path"]}),
    ]


@admin.register(FeatureGate)
class FeatureGateAdmin(PublicSigScopedAdminMixin, admin.ModelAdmin):
    """Feature gates follow their KEP's owning SIG."""

    sig_lookup = "kep__owning_sig"
    sig_scoped_fields = {"kep": "owning_sig"}
    list_display = ["name", "kep", "components"]
    search_fields = ["name", "kep__title", "=kep__number"]
    autocomplete_fields = ["kep"]
    list_select_related = ["kep"]


@admin.register(PrrApproval)
class PrrApprovalAdmin(PublicSigScopedAdminMixin, admin.ModelAdmin):
    """PRR approvals are recorded by leads of the KEP's owning SIG."""

    sig_lookup = "kep__owning_sig"
    editing_roles = (SigRole.LEAD,)
    sig_scoped_fields = {"kep": "owning_sig"}
    list_display = ["kep", "stage", "approver"]
    list_filter = ["stage", "approver"]
    search_fields = ["=kep__number", "kep__title", "approver__github"]
    autocomplete_fields = ["kep", "approver"]
    list_select_related = ["kep", "approver"]


@admin.register(DesignGroup)
class DesignGroupAdmin(PublicSigScopedAdminMixin, admin.ModelAdmin):
    """A design group spans SIGs: a lead of any of its SIGs changes it (any lead while it names none)."""

    editing_roles = (SigRole.LEAD,)
    sig_optional = True

    def obj_sig_ids(self, obj):
        return set(obj.sigs.values_list("pk", flat=True)) if obj.pk else set()

    list_display = ["name", "slug", "coverage_status", "kep_count"]
    list_filter = ["coverage_status", "sigs"]
    search_fields = ["name", "summary"]
    prepopulated_fields = {"slug": ["name"]}
    autocomplete_fields = ["sigs", "keps"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(kep_count=Count("keps"))

    @admin.display(ordering="kep_count", description="KEPs")
    def kep_count(self, obj):
        return obj.kep_count


@admin.register(KepPlanChange)
class KepPlanChangeAdmin(admin.ModelAdmin):
    """Plan history replayed from kubernetes/enhancements' git log (`import_keps --history`): derived from git,
    so nobody adds, edits or deletes it here; a re-import from a fresh cursor rebuilds it."""

    list_display = ["kep_number", "committed_at", "stage", "target_milestone", "slipped_from", "commit_sha"]
    list_filter = ["stage", "status"]
    search_fields = ["=kep_number", "commit_sha", "path"]
    date_hierarchy = "committed_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
