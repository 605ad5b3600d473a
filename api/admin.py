from django.contrib import admin, messages

from .models import ApiToken
from .services import api_token_create


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are made here (or with `manage.py create_api_token`); the key is shown once, in the message after
    saving. To revoke a token, delete it."""

    list_display = ["name", "user", "prefix", "created_at"]
    list_select_related = ["user"]
    search_fields = ["name", "user__username", "prefix"]
    readonly_fields = ["prefix", "created_at"]
    autocomplete_fields = ["user"]

    def get_readonly_fields(self, request, obj=None):
        # A token's owner and name are fixed once it exists: make a new one instead.
        return [*self.readonly_fields, "user"] if obj else self.readonly_fields

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        _, key = api_token_create(user=obj.user, name=obj.name, token=obj)
        messages.warning(request, f"The key of “{obj.name}” is {key} — copy it now; it is not shown again.")
