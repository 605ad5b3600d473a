"""People: who may change a person depends on the KEPs and tracked enhancements they work on."""

from django.contrib import admin

from community.admin_scope import PublicSigScopedAdminMixin
from community.choices import SigRole
from community.models import Person

from ..selectors import person_sig_ids


@admin.register(Person)
class PersonAdmin(PublicSigScopedAdminMixin, admin.ModelAdmin):
    """A person's details (email, reminder opt-out) decide where their reminders go, so only leads of a SIG
    the person belongs to (`releases.selectors.person_sig_ids`: KEPs they author, review or approve, enhancements
    they are the contact of) change or delete them. A person who belongs to no SIG yet is changed by any lead.
    Liaisons may add people (to name an enhancements contact) but change none."""

    editing_roles = (SigRole.LEAD,)
    sig_optional = True

    def obj_sig_ids(self, obj):
        return person_sig_ids(obj)

    list_display = ["github", "name", "email", "reminders_opt_out"]
    list_filter = ["reminders_opt_out"]
    search_fields = ["github", "name", "email"]
    actions = ["opt_out_of_reminders"]

    @admin.action(description="Opt the selected people out of reminder emails", permissions=["change"])
    def opt_out_of_reminders(self, request, queryset):
        changed = list(queryset.filter(reminders_opt_out=False))
        Person.objects.filter(pk__in=[row.pk for row in changed]).update(reminders_opt_out=True)
        self.log_action_changes(request, changed, "Opted out of reminders (bulk action).")
        self.message_user(request, f"{len(changed)} people opted out of reminders.")
