"""ASGI entry point; the same request limits as config/wsgi.py."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DATABASE_STATEMENT_TIMEOUT_MS", "10000")

application = get_asgi_application()
