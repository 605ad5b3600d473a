from django.apps import AppConfig


class KepsConfig(AppConfig):
    name = "keps"
    verbose_name = "KEPs"
