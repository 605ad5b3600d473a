import os

from django.core.wsgi import get_wsgi_application

from sigtracker.settings import settings_module

# Production unless DEBUG=true says otherwise: the rule manage.py and Celery's worker and beat share.
os.environ["DJANGO_SETTINGS_MODULE"] = settings_module(default="sigtracker.settings.prod")
application = get_wsgi_application()
