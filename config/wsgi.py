"""WSGI entry point for gunicorn (and runserver).

Only web servers load this module, so the limits that suit a request and not an import are
set here: PostgreSQL cancels a request's statement after DATABASE_STATEMENT_TIMEOUT_MS.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Well under gunicorn's 30 s worker timeout; a page's queries take milliseconds.
os.environ.setdefault("DATABASE_STATEMENT_TIMEOUT_MS", "10000")

application = get_wsgi_application()
