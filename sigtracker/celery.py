"""The Celery application: configured from Django settings under the CELERY_ namespace.

Worker and beat choose their settings module by the same rule as `manage.py` and gunicorn
(`sigtracker.settings.settings_module`): production unless DEBUG says otherwise, so a worker in production
loads the production guards (SECRET_KEY, ALLOWED_HOSTS, SIGTRACKER_BASE_URL) and refuses to start without them.
"""

import os

from celery import Celery

from sigtracker.settings import settings_module

# No default of its own: loaded by `manage.py` (the demo's dev default), gunicorn or `celery -A sigtracker`
# (production), it takes the one its entry point declared.
os.environ["DJANGO_SETTINGS_MODULE"] = settings_module()

app = Celery("sigtracker")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
