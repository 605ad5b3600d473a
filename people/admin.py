from django.contrib import admin

from .models import PreferenceChange, Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["person", "user", "email_reminders", "slack_dm", "time_zone"]
    search_fields = ["person__github", "user__username"]
    # The calendar secret is a credential: never shown, reset by its owner on /me/.
    exclude = ["calendar_secret"]
    raw_id_fields = ["person", "user"]


@admin.register(PreferenceChange)
class PreferenceChangeAdmin(admin.ModelAdmin):
    """Append-only: read here, written by the people app's services."""

    list_display = ["at", "person", "address", "field", "old", "new", "source", "user"]
    list_filter = ["source", "field"]
    search_fields = ["person__github", "address"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
