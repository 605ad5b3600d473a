"""Benchmarks: production-like (DEBUG off), local email, eager Celery unless a benchmark starts a worker."""

from .base import *  # noqa: F403

SECRET_KEY = "bench-only-secret-key"
# Demo and benchmark data (generate_synthetic, demo): never installed in production.
INSTALLED_APPS = [*INSTALLED_APPS, "devdata"]  # noqa: F405
DEBUG = False
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
