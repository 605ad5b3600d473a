"""The test suite: fast hashing, in-memory email, eager Celery unless a test asks for the broker."""

from .base import *  # noqa: F403

SECRET_KEY = "test-only-secret-key"
# Demo and benchmark data (generate_synthetic, demo): never installed in production.
INSTALLED_APPS = [*INSTALLED_APPS, "devdata"]  # noqa: F405
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# Tests see every change at once; tests of the page cache switch it on themselves.
SIGTRACKER_PAGE_CACHE_SECONDS = 0
SIGTRACKER_PAGE_CACHE_RECHECK = 0
# API tests anywhere in the suite share one client IP within a worker; the rate-limit tests set their own limit.
SIGTRACKER_API_ANON_RATE = "10000/minute"
# Tests never reach GitHub: the upstream sources are off unless a test points them at local repositories.
SIGTRACKER_UPSTREAM_ENHANCEMENTS = ""
SIGTRACKER_UPSTREAM_SIG_RELEASE = ""
SIGTRACKER_UPSTREAM_COMMUNITY = ""
