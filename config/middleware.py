"""Middleware for response headers, for request text the database refuses, for answering
database outages with a 503 page, for htmx requests whose session has ended, and for a page
that says why a form's action cannot be opened (405)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import resolve_url
from django.utils.cache import patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme, urlencode

from config.errors import (
    DATABASE_UNAVAILABLE_ERRORS,
    database_unavailable_response,
    method_not_allowed_page,
)
from papers.search.store import IndexUnavailable

logger = logging.getLogger(__name__)


def django_security_headers() -> dict[str, str]:
    """The headers Django's SecurityMiddleware and XFrameOptionsMiddleware set, from the same
    settings, for the responses that never pass through those two: a 400 for a bad Host raised
    inside SecurityMiddleware, its HTTPS redirect (before XFrameOptionsMiddleware), a static file
    served by WhiteNoise. Content-Security-Policy and Permissions-Policy come from django-csp
    and django-permissions-policy, whose middleware sits outside this one (config/settings.py).
    """
    return {
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": settings.SECURE_REFERRER_POLICY,
        "Cross-Origin-Opener-Policy": settings.SECURE_CROSS_ORIGIN_OPENER_POLICY,
        "X-Frame-Options": settings.X_FRAME_OPTIONS,
    }


class SecurityHeadersMiddleware:
    """Django's security headers on every response, whoever made it, and no shared caching of
    anything personal.

    A response is personal when the request carries a session cookie (a logged-in member's
    pages show their name, notes, lists and exports) or when it sets a cookie (a login, a CSRF
    token): those get `Cache-Control: private, no-store`, so neither a CDN nor a shared proxy
    stores them. Anonymous pages are left for the deployment to cache as it likes.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.headers = django_security_headers()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self._is_personal(request, response):
            patch_cache_control(response, private=True, no_store=True)
        for name, value in self.headers.items():
            response.headers.setdefault(name, value)
        return response

    @staticmethod
    def _is_personal(request: HttpRequest, response: HttpResponse) -> bool:
        # Static files are the same for everyone and keep WhiteNoise's long public caching,
        # whoever asks for them.
        if request.path.startswith(settings.STATIC_URL):
            return False
        return settings.SESSION_COOKIE_NAME in request.COOKIES or bool(response.cookies)


def _without_nul(data: QueryDict) -> QueryDict:
    cleaned = QueryDict(mutable=True)
    for key, values in data.lists():
        cleaned.setlist(key.replace("\x00", ""), [value.replace("\x00", "") for value in values])
    cleaned._mutable = False
    return cleaned


def _has_nul(data: QueryDict) -> bool:
    return any("\x00" in key or any("\x00" in v for v in values) for key, values in data.lists())


class NulCharacterMiddleware:
    """Keeps NUL characters, which PostgreSQL refuses in text, away from every query.

    A path with a NUL in it names nothing: 404. In query-string and form parameters and in
    cookies (a quoted cookie may spell NUL as \\000) the character is dropped, so forms, filters
    and the session lookup see the rest of the text and answer as they would without it.
    Runs before the session middleware, which looks the session cookie up in the database.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path_info:
            raise Http404("No page has this address.")
        # The stubs call request.GET an immutable QueryDict subtype; ours is immutable too.
        if _has_nul(request.GET):
            request.GET = _without_nul(request.GET)  # type: ignore[assignment]
        if request.method == "POST" and _has_nul(request.POST):
            request.POST = _without_nul(request.POST)  # type: ignore[assignment]
        for name, value in list(request.COOKIES.items()):
            if "\x00" in value:
                request.COOKIES[name] = value.replace("\x00", "")
        return self.get_response(request)


class DatabaseUnavailableMiddleware:
    """Turns a database outage raised by a view into our 503 page instead of a 500, and a
    search index that cannot be used yet into the same page naming the command that builds it.

    Outages raised outside views (middleware, session saving) reach config.errors.server_error,
    which gives the same page. With DEBUG on the developer sees the real traceback instead.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, IndexUnavailable):
            logger.error("Search index unavailable while serving %s: %s", request.path, exception)
            return database_unavailable_response(index_command=exception.command)
        if settings.DEBUG or not isinstance(exception, DATABASE_UNAVAILABLE_ERRORS):
            return None
        # One line per request: during an outage every request fails the same way.
        logger.error("Database unavailable while serving %s: %s", request.path, exception)
        return database_unavailable_response()


class MethodNotAllowedPageMiddleware:
    """Gives the empty 405 of require_POST and its kind a page: a member who opens a form's
    action (a bookmarked or shared "delete" address, a link copied from the source) otherwise
    sees a blank page. The Allow header stays."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or response.streaming or response.content:
            return response
        page = method_not_allowed_page()
        if "Allow" in response:
            page["Allow"] = response["Allow"]
        return page


class HtmxLoginRedirectMiddleware:
    """An htmx request from a page whose session has ended (logged out in another tab, or
    expired) answers 401 instead of the redirect to the login page: htmx would follow it and
    swap the whole login page into the section, losing what the member typed. The 401 is not
    swapped; static/js/annotations.js says why, the text left where it was.

    A plain form POST still goes to the login page, but back to the page the form was on (its
    same-site Referer) rather than to the action's URL: most actions are POST-only, and after
    logging in the member would land on a blank 405."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code not in (301, 302):
            return response
        login_url = resolve_url(settings.LOGIN_URL)
        if urlsplit(response["Location"]).path != login_url:
            return response
        if getattr(request, "htmx", False):
            return HttpResponse("Log in again to continue.", status=401, content_type="text/plain")
        if request.method == "POST":
            messages.info(request, "You were logged out, so that was not saved: log in to go on.")
            back = _same_site_referer(request)
            response["Location"] = f"{login_url}?{urlencode({'next': back})}" if back else login_url
        return response


def _same_site_referer(request: HttpRequest) -> str:
    """The path and query of the page the request came from, when it is on this site."""
    referer = request.headers.get("Referer", "")
    if not url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return ""
    parts = urlsplit(referer)
    if not parts.path.startswith("/") or parts.path == resolve_url(settings.LOGIN_URL):
        return ""
    return f"{parts.path}?{parts.query}" if parts.query else parts.path
