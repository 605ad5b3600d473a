from django.contrib import admin
from django.db.models import Count

from .models import DesignGroup, FeatureGate, Kep, Person, PrrApproval, Sig, SigMembership


@admin.register(Sig)
class SigAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "mailing_list", "kep_count"]
    search_fields = ["slug", "name"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(kep_count=Count("owned_keps"))

    @admin.display(ordering="kep_count", description="KEPs owned")
    def kep_count(self, obj):
        return obj.kep_count


@admin.register(Person)
class PersonAdmin(admin.ModelAdmin):
    list_display = ["github", "name", "email", "reminders_opt_out"]
    list_filter = ["reminders_opt_out"]
    search_fields = ["github", "name", "email"]
    actions = ["opt_out_of_reminders"]

    @admin.action(description="Opt the selected people out of reminder emails")
    def opt_out_of_reminders(self, request, queryset):
        updated = queryset.update(reminders_opt_out=True)
        self.message_user(request, f"{updated} people opted out of reminders.")


class FeatureGateInline(admin.TabularInline):
    model = FeatureGate
    extra = 0


class PrrApprovalInline(admin.TabularInline):
    model = PrrApproval
    extra = 0
    autocomplete_fields = ["approver"]


@admin.register(Kep)
class KepAdmin(admin.ModelAdmin):
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
class FeatureGateAdmin(admin.ModelAdmin):
    list_display = ["name", "kep", "components"]
    search_fields = ["name", "kep__title", "=kep__number"]
    autocomplete_fields = ["kep"]
    list_select_related = ["kep"]


@admin.register(PrrApproval)
class PrrApprovalAdmin(admin.ModelAdmin):
    list_display = ["kep", "stage", "approver"]
    list_filter = ["stage", "approver"]
    search_fields = ["=kep__number", "kep__title", "approver__github"]
    autocomplete_fields = ["kep", "approver"]
    list_select_related = ["kep", "approver"]


@admin.register(DesignGroup)
class DesignGroupAdmin(admin.ModelAdmin):
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


@admin.register(SigMembership)
class SigMembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "sig", "role"]
    list_filter = ["role", "sig"]
    search_fields = ["user__username", "sig__slug"]
    autocomplete_fields = ["sig"]
    list_select_related = ["user", "sig"]

    def save_model(self, request, obj, form, change):
        # Through the service, so the user also gets staff access and the role's group.
        from sigtracker.roles import sig_membership_grant

        sig_membership_grant(user=obj.user, sig=obj.sig, role=obj.role)
