"""WSGI entry point for gunicorn: ``gunicorn webui.wsgi``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")

application = get_wsgi_application()
