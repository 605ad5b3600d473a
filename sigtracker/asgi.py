import os

from django.core.asgi import get_asgi_application

from sigtracker.settings import settings_module

# The rule manage.py, gunicorn and Celery share: production unless DEBUG=true says otherwise.
os.environ["DJANGO_SETTINGS_MODULE"] = settings_module(default="sigtracker.settings.prod")
application = get_asgi_application()
