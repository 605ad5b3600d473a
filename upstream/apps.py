from django.apps import AppConfig


class UpstreamConfig(AppConfig):
    name = "upstream"
    verbose_name = "Upstream repositories"
    default_auto_field = "django.db.models.BigAutoField"
