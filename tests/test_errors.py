"""Error pages: our templates, nothing revealed, and a 503 (not a 500) when the database is down.

This module doubles as a URLconf for views that fail on purpose, on top of the real routes.
"""

from __future__ import annotations

from unittest import mock

import pytest
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.db import OperationalError, connections
from django.test import Client
from django.urls import path, reverse

from config import urls as project_urls

SECRET_DETAIL = "detail-that-must-never-reach-a-browser /srv/app/settings.py"


def _raise_value_error(request):
    raise ValueError(SECRET_DETAIL)


def _raise_permission_denied(request):
    raise PermissionDenied(SECRET_DETAIL)


def _raise_suspicious(request):
    raise SuspiciousOperation(SECRET_DETAIL)


def _raise_database_down(request):
    raise OperationalError(f"could not connect to server: {SECRET_DETAIL}")


urlpatterns = [
    path("boom/", _raise_value_error),
    path("forbidden/", _raise_permission_denied),
    path("suspicious/", _raise_suspicious),
    path("db-down/", _raise_database_down),
    *project_urls.urlpatterns,
]
handler500 = project_urls.handler500

LEAK_MARKERS = [b"Traceback", b"OperationalError", b"ValueError", b"settings.py", b"/srv/"]


def assert_reveals_nothing(response):
    for marker in LEAK_MARKERS:
        assert marker not in response.content, marker
    assert SECRET_DETAIL.encode() not in response.content


def assert_styled_by_our_css(response):
    assert b'<link rel="stylesheet" href="/static/css/site.css">' in response.content


@pytest.fixture
def lenient_client():
    # Answer with the error page the way a browser would see it instead of re-raising.
    return Client(raise_request_exception=False)


def test_unknown_address_gets_our_404_page(client, db):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert b"Page not found" in response.content
    assert_styled_by_our_css(response)


def test_unknown_paper_gets_our_404_page(client, db):
    response = client.get("/no-such-paper-99999/")
    assert response.status_code == 404
    assert b"Page not found" in response.content


@pytest.mark.urls(__name__)
def test_crash_gets_our_500_page_without_details(lenient_client, db):
    response = lenient_client.get("/boom/")
    assert response.status_code == 500
    assert b"Something went wrong" in response.content
    assert_styled_by_our_css(response)
    assert_reveals_nothing(response)


@pytest.mark.urls(__name__)
def test_permission_denied_gets_our_403_page_without_details(client, db):
    response = client.get("/forbidden/")
    assert response.status_code == 403
    assert b"Access denied" in response.content
    assert_reveals_nothing(response)


@pytest.mark.urls(__name__)
def test_suspicious_request_gets_our_400_page_without_details(client, db):
    response = client.get("/suspicious/")
    assert response.status_code == 400
    assert b"Bad request" in response.content
    assert_reveals_nothing(response)


def test_unknown_host_gets_our_400_page(client, db):
    response = client.get("/", HTTP_HOST="attacker.example")
    assert response.status_code == 400
    assert b"Bad request" in response.content
    assert b"attacker.example" not in response.content
    assert b"ALLOWED_HOSTS" not in response.content


def test_missing_csrf_token_gets_our_403_page(db):
    client = Client(enforce_csrf_checks=True)
    response = client.post(reverse("login"), {"username": "a", "password": "b"})
    assert response.status_code == 403
    assert b"This form could not be accepted" in response.content
    assert b"CSRF" not in response.content


@pytest.mark.urls(__name__)
def test_database_error_in_a_view_gets_our_503_page(lenient_client, db):
    response = lenient_client.get("/db-down/")
    assert response.status_code == 503
    assert b"Temporarily unavailable" in response.content
    assert response["Retry-After"] == "30"
    assert_styled_by_our_css(response)
    assert_reveals_nothing(response)


def _database_down():
    return mock.patch.object(
        connections["default"],
        "cursor",
        side_effect=OperationalError(f"connection refused: {SECRET_DETAIL}"),
    )


def test_paper_list_answers_503_while_database_is_down_and_recovers(lenient_client, db):
    with _database_down():
        response = lenient_client.get(reverse("papers:list"))
    assert response.status_code == 503
    assert b"Temporarily unavailable" in response.content
    assert_reveals_nothing(response)
    assert lenient_client.get(reverse("papers:list")).status_code == 200


def test_database_down_before_the_view_also_gets_503(lenient_client, user, settings):
    # With REQUIRE_LOGIN the session is read in middleware, before any view runs.
    settings.MIDDLEWARE = [
        *settings.MIDDLEWARE,
        "django.contrib.auth.middleware.LoginRequiredMiddleware",
    ]
    lenient_client.force_login(user)
    with _database_down():
        response = lenient_client.get(reverse("papers:list"))
    assert response.status_code == 503
    assert b"Temporarily unavailable" in response.content
    assert_reveals_nothing(response)


def test_error_pages_carry_the_security_headers(client, db):
    response = client.get("/no/such/page/")
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.urls(__name__)
def test_crash_still_gets_our_500_page_when_static_files_were_not_collected(
    lenient_client, db, settings, tmp_path
):
    # Without `collectstatic` the error page cannot name its stylesheet; it must still be ours
    # (not gunicorn's bare page) and reveal nothing.
    settings.STATIC_ROOT = tmp_path / "staticfiles"
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    response = lenient_client.get("/boom/")
    assert response.status_code == 500
    assert b"Server error" in response.content
    assert_reveals_nothing(response)
