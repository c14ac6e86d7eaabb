"""Middleware for response headers and for answering database outages with a 503 page."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from config.errors import DATABASE_UNAVAILABLE_ERRORS, database_unavailable_response

logger = logging.getLogger(__name__)

# Only our own static files run or style anything. KaTeX writes its layout into style
# attributes, hence style-src-attr; fonts and small images may come inline as data: URLs.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "form-action 'self'",
        "base-uri 'self'",
        "object-src 'none'",
    ]
)

# Powerful browser features the site never uses are switched off for it and anything it embeds.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
)


class SecurityHeadersMiddleware:
    """Adds Content-Security-Policy and Permissions-Policy (Django 5.2 has neither built in)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if settings.DEBUG and response.status_code >= 400:
            # Django's debug error pages style and script themselves inline; in development
            # they must stay readable. Production error pages are ours and obey the policy.
            return response
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response


class DatabaseUnavailableMiddleware:
    """Turns a database outage raised by a view into our 503 page instead of a 500.

    Outages raised outside views (middleware, session saving) reach config.errors.server_error,
    which gives the same page. With DEBUG on the developer sees the real traceback instead.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if settings.DEBUG or not isinstance(exception, DATABASE_UNAVAILABLE_ERRORS):
            return None
        # One line per request: during an outage every request fails the same way.
        logger.error("Database unavailable while serving %s: %s", request.path, exception)
        return database_unavailable_response()
