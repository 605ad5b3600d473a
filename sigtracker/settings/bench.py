"""Benchmarks: production-like (DEBUG off), local email, eager Celery unless a benchmark starts a worker."""

from .base import *  # noqa: F403

SECRET_KEY = "bench-only-secret-key"
DEBUG = False
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
