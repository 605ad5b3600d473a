from django.apps import AppConfig


class SigtrackerConfig(AppConfig):
    name = "sigtracker"
    verbose_name = "sigtracker"
