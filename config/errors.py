"""Error pages that reveal nothing and render without the database.

500 and 503 pages are rendered from a plain dict (no request, so no context processors): those
processors may touch the session or the user, which is exactly what fails when the database is
down.
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template import loader

# Errors raised when the database cannot be reached (refused, timed out, dropped connection,
# SQLite locked): all transient, so the honest answer is "try again shortly", not a server bug.
DATABASE_UNAVAILABLE_ERRORS = (OperationalError, InterfaceError)

RETRY_AFTER_SECONDS = 30

logger = logging.getLogger(__name__)

# What an error page says when its template cannot render: the manifest storage raises
# ValueError for `{% static %}` when `collectstatic` has not run on this host, and the error page
# must still be ours rather than gunicorn's bare "Internal Server Error".
_UNSTYLED_PAGES = {
    500: ("Server error", "The server hit an error while handling this request."),
    503: ("Temporarily unavailable", "The paper browser is unavailable right now."),
    405: ("Method not allowed", "This address does not accept that kind of request."),
}


def _render_standalone(template_name: str, status: int, **context) -> HttpResponse:
    context["SITE_NAME"] = settings.SITE_NAME
    try:
        content = loader.get_template(template_name).render(context)
    except ValueError:
        logger.exception("Error page %s could not render (has collectstatic run?)", template_name)
        title, message = _UNSTYLED_PAGES.get(status, _UNSTYLED_PAGES[500])
        content = (
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"</head><body><h1>{title}</h1><p>{message} Please try again in a moment.</p>"
            '<p><a href="/">Back to the papers</a></p></body></html>'
        )
    return HttpResponse(content, status=status)


def database_unavailable_response(*, index_command: str = "") -> HttpResponse:
    """Our 503 page: the database is unreachable, or (with `index_command`, the command that
    builds it) the search index is not usable yet."""
    response = _render_standalone("503.html", status=503, index_command=index_command)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


def method_not_allowed_page() -> HttpResponse:
    """Our 405 page (config.middleware.MethodNotAllowedPageMiddleware adds the Allow header)."""
    return _render_standalone("405.html", status=405)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: also catches database outages raised outside views (e.g. in middleware).

    Django calls this while still handling the exception, so sys.exc_info() names it.
    """
    if isinstance(sys.exc_info()[1], DATABASE_UNAVAILABLE_ERRORS):
        return database_unavailable_response()
    return _render_standalone("500.html", status=500)
