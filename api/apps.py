from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The read API (/api/v1/), its tokens, and the Atom feeds (/feeds/)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = "API and feeds"

    def ready(self):
        from . import schema  # noqa: F401  (registers the token scheme with drf-spectacular)
