"""Plans in the admin: decisions are added (through the one service, so the history row names what it replaced)
and never changed or deleted; proposals are read and removed; curators set people's capacity limits."""

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied

from community.admin_scope import SigScopedAdminMixin
from community.choices import SigRole

from .models import CapacityLimit, PlanCandidate, PlanDecision
from .selectors import plan_candidate_numbers
from .services import PlanInvalid, PlanRefused, plan_decision_record


class PlanDecisionForm(forms.ModelForm):
    class Meta:
        model = PlanDecision
        fields = ["release", "sig", "kep", "decision", "note"]

    def clean(self):
        cleaned = super().clean()
        release, sig, kep = cleaned.get("release"), cleaned.get("sig"), cleaned.get("kep")
        if release and sig and kep and not self.errors:
            if kep.number not in plan_candidate_numbers(version=release, sig=sig):
                raise forms.ValidationError(f"KEP-{kep.number} is not a candidate of {sig.slug}'s plan for v{release}.")
        return cleaned


@admin.register(PlanDecision)
class PlanDecisionAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    """Append-only: "Add" records a decision (the newest per KEP is the current one); rows are read-only."""

    form = PlanDecisionForm
    editing_roles = (SigRole.LEAD,)
    list_display = ["release", "sig", "kep", "from_decision", "decision", "by", "at"]
    list_filter = ["release", "decision", "sig"]
    search_fields = ["kep__number", "kep__title", "note", "by__username"]
    list_select_related = ["sig", "kep", "by"]
    autocomplete_fields = ["kep"]
    date_hierarchy = "at"

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        if change:
            raise PermissionDenied("Decisions are never changed: add a new one.")
        try:
            saved = plan_decision_record(
                user=request.user,
                release=obj.release,
                sig=obj.sig,
                kep=obj.kep,
                decision=obj.decision,
                note=obj.note,
            )
        except PlanRefused as exc:
            raise PermissionDenied(str(exc)) from None
        except PlanInvalid as exc:
            raise PermissionDenied(str(exc)) from None
        obj.pk, obj.from_decision, obj.by, obj.at = saved.pk, saved.from_decision, saved.by, saved.at


@admin.register(PlanCandidate)
class PlanCandidateAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    """Proposals made on the plan pages: who proposed which KEP, at which stage, when. Read-only but for a SIG
    lead's (or curator's) delete of a stray proposal."""

    editing_roles = (SigRole.LEAD,)
    list_display = ["release", "sig", "kep", "stage", "proposed_by", "at"]
    list_filter = ["release", "sig"]
    search_fields = ["kep__number", "kep__title", "note", "proposed_by__username"]
    list_select_related = ["sig", "kep", "proposed_by"]
    readonly_fields = ["release", "sig", "kep", "stage", "note", "proposed_by", "at"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(CapacityLimit)
class CapacityLimitAdmin(admin.ModelAdmin):
    """A curator's limit on a person's KEPs per release in one role, in place of the limit their past releases
    prove. Shown on the plan page with who set it and the note."""

    list_display = ["person", "role", "limit", "note", "set_by", "set_at"]
    list_filter = ["role"]
    search_fields = ["person__github", "person__name", "note"]
    list_select_related = ["person", "set_by"]
    autocomplete_fields = ["person"]
    readonly_fields = ["set_by", "set_at"]

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def has_add_permission(self, request):
        return request.user.is_active and request.user.is_superuser

    def has_change_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def save_model(self, request, obj, form, change):
        obj.set_by = request.user
        super().save_model(request, obj, form, change)
