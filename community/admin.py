"""Admin of the community's rows: SIG memberships (who may edit what), and the sigs.yaml data import_sigs keeps
(leaders, meetings) with the kep.yaml spelling table. The SIG and person lists are registered by the apps whose
rows decide them: `keps.admin` (a SIG's KEP count) and `releases.admin` (who may change a person)."""

from django.contrib import admin

from .admin_scope import PublicSigScopedAdminMixin
from .choices import SigRole
from .models import SigAlias, SigLeadership, SigMeeting, SigMembership


@admin.register(SigMembership)
class SigMembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "sig", "role"]
    list_filter = ["role", "sig"]
    search_fields = ["user__username", "sig__slug"]
    autocomplete_fields = ["sig"]
    list_select_related = ["user", "sig"]

    def save_model(self, request, obj, form, change):
        # Through the service, so the user also gets staff access and the role's group.
        from community.roles import sig_membership_grant

        sig_membership_grant(user=obj.user, sig=obj.sig, role=obj.role)


# -- sigs.yaml data (import_sigs) and the kep.yaml alias table ------------------------------------------------


@admin.register(SigLeadership)
class SigLeadershipAdmin(PublicSigScopedAdminMixin, admin.ModelAdmin):
    """Chairs and tech leads, as sigs.yaml lists them: a re-import makes them what the file says again."""

    editing_roles = (SigRole.LEAD,)
    list_display = ["sig", "person", "role"]
    list_filter = ["role", "sig"]
    search_fields = ["sig__slug", "person__github", "person__name"]
    autocomplete_fields = ["person"]


@admin.register(SigMeeting)
class SigMeetingAdmin(PublicSigScopedAdminMixin, admin.ModelAdmin):
    """Recurring meetings from sigs.yaml; the home page and /sigs/<slug>/meetings.ics date them."""

    editing_roles = (SigRole.LEAD,)
    list_display = ["sig", "description", "day", "time", "tz", "frequency", "anchor_date"]
    list_filter = ["frequency", "sig"]
    search_fields = ["sig__slug", "description"]


@admin.register(SigAlias)
class SigAliasAdmin(admin.ModelAdmin):
    """How import_keps reads SIG spellings of kep.yaml files (`sig-machinery` -> sig-api-machinery; an empty SIG
    means "no SIG", as for `TBD`). Spellings are lower case."""

    list_display = ["spelling", "sig_slug", "note"]
    search_fields = ["spelling", "sig_slug", "note"]
