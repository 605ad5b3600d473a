"""Local development and the demo: DEBUG on, an insecure key is acceptable."""

from .base import *  # noqa: F403
from .base import env_bool

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = SECRET_KEY or "dev-only-insecure-key-change-me"  # noqa: F405
WHITENOISE_USE_FINDERS = True
# Demo and benchmark data (generate_synthetic, demo): never installed in production.
INSTALLED_APPS = [*INSTALLED_APPS, "devdata"]  # noqa: F405
WHITENOISE_AUTOREFRESH = True
