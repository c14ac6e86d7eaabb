"""Security settings and headers: `check --deploy` clean in production, CSP on every response."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from tests.factories import PASSWORD, make_paper
from tests.manage_child import run_manage

BASE_DIR = Path(__file__).resolve().parent.parent

PRODUCTION_ENV = {
    "DJANGO_DEBUG": "0",
    "DJANGO_ALLOWED_HOSTS": "papers.example.org",
    "DJANGO_SECURE_SSL": "1",
    "SITE_URL": "https://papers.example.org",
}


def _manage(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    full_env = {
        **clean,
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'check.sqlite3'}",
        **env,
    }
    return run_manage(full_env, *args)


def _settings_values(names: list[str], env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{n: repr(getattr(settings, n, None)) for n in {names!r}}}))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DATABASE_URL": f"sqlite:///{tmp_path / 'check.sqlite3'}",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_check_deploy_is_clean_with_the_documented_production_environment(tmp_path):
    result = _manage(["check", "--deploy", "--fail-level", "WARNING"], PRODUCTION_ENV, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_is_clean_with_hsts_preload_opted_in(tmp_path):
    env = {**PRODUCTION_ENV, "DJANGO_SECURE_HSTS_PRELOAD": "1", "DJANGO_BEHIND_PROXY": "1"}
    result = _manage(["check", "--deploy", "--fail-level", "WARNING"], env, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues (0 silenced)" in result.stdout


def test_check_deploy_complains_without_tls(tmp_path):
    env = {**PRODUCTION_ENV, "DJANGO_SECURE_SSL": "0"}
    result = _manage(["check", "--deploy", "--fail-level", "WARNING"], env, tmp_path)
    assert result.returncode != 0
    assert "security.W008" in result.stderr + result.stdout


def test_tls_switch_turns_on_secure_cookies_redirect_and_hsts(tmp_path):
    names = [
        "SECURE_SSL_REDIRECT",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "SECURE_HSTS_PRELOAD",
        "SECURE_PROXY_SSL_HEADER",
    ]
    assert _settings_values(names, PRODUCTION_ENV, tmp_path) == {
        "SECURE_SSL_REDIRECT": "True",
        "SESSION_COOKIE_SECURE": "True",
        "CSRF_COOKIE_SECURE": "True",
        "SECURE_HSTS_SECONDS": "31536000",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": "True",
        "SECURE_HSTS_PRELOAD": "False",
        "SECURE_PROXY_SSL_HEADER": "None",
    }


def test_without_tls_switch_cookies_are_not_secure_and_there_is_no_hsts(tmp_path):
    names = ["SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "SECURE_HSTS_SECONDS"]
    env = {**PRODUCTION_ENV, "DJANGO_SECURE_SSL": "0"}
    assert _settings_values(names, env, tmp_path) == {
        "SECURE_SSL_REDIRECT": "False",
        "SESSION_COOKIE_SECURE": "False",
        "SECURE_HSTS_SECONDS": "0",
    }


def test_proxy_header_is_trusted_behind_a_proxy(tmp_path):
    env = {**PRODUCTION_ENV, "DJANGO_BEHIND_PROXY": "1", "DJANGO_SECURE_HSTS_SECONDS": "600"}
    values = _settings_values(["SECURE_PROXY_SSL_HEADER", "SECURE_HSTS_SECONDS"], env, tmp_path)
    assert values == {
        "SECURE_PROXY_SSL_HEADER": "('HTTP_X_FORWARDED_PROTO', 'https')",
        "SECURE_HSTS_SECONDS": "600",
    }


def test_check_deploy_warns_when_reset_links_would_point_at_localhost(tmp_path):
    env = {**PRODUCTION_ENV, "SITE_URL": "http://127.0.0.1:8000"}
    result = _manage(["check", "--deploy", "--fail-level", "WARNING"], env, tmp_path)
    assert result.returncode != 0
    assert "annotations.W001" in result.stderr + result.stdout


@pytest.mark.parametrize("value", ["papers.example.org", "ftp://x.org", "https://x.org/path"])
def test_settings_refuse_a_site_url_that_is_not_an_origin(tmp_path, value):
    result = _manage(["check"], {"DJANGO_DEBUG": "1", "SITE_URL": value}, tmp_path)
    assert result.returncode != 0
    assert "SITE_URL" in result.stderr


def test_settings_refuse_a_login_limit_that_would_lock_everyone_out(tmp_path):
    result = _manage(["check"], {**PRODUCTION_ENV, "LOGIN_MAX_FAILURES": "0"}, tmp_path)
    assert result.returncode != 0
    assert "LOGIN_MAX_FAILURES" in result.stderr


def test_production_settings_refuse_to_start_without_a_secret_key(tmp_path):
    result = _manage(["check"], {**PRODUCTION_ENV, "DJANGO_SECRET_KEY": ""}, tmp_path)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


@pytest.fixture
def page(client, db):
    make_paper("Secure Paper")
    return client.get(reverse("papers:list"))


EXPECTED_CSP = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "style-src-attr": "'unsafe-inline'",
    "img-src": "'self' data:",
    "font-src": "'self' data:",
    "connect-src": "'self'",
    "worker-src": "'self'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
    "base-uri": "'self'",
    "object-src": "'none'",
}


def _csp(response) -> dict[str, str]:
    directives = [part.strip() for part in response["Content-Security-Policy"].split(";")]
    return {d.split(" ", 1)[0]: d.split(" ", 1)[1] for d in directives if d}


def test_pages_carry_a_content_security_policy_allowing_only_our_files(page):
    assert page.status_code == 200
    assert _csp(page) == EXPECTED_CSP


def test_pages_carry_the_other_security_headers(page):
    assert page["X-Content-Type-Options"] == "nosniff"
    assert page["Referrer-Policy"] == "same-origin"
    assert page["X-Frame-Options"] == "DENY"
    assert page["Cross-Origin-Opener-Policy"] == "same-origin"
    assert "camera=()" in page["Permissions-Policy"]
    assert "geolocation=()" in page["Permissions-Policy"]


def test_healthz_carries_the_policy_too(client, db):
    assert "Content-Security-Policy" in client.get(reverse("healthz"))


def test_session_cookie_is_http_only(client, user):
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert response.cookies["sessionid"]["httponly"] is True


INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
EVENT_HANDLER_ATTRIBUTE = re.compile(rb"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


@pytest.mark.parametrize(
    "url_name",
    [
        "admin:index",
        "admin:papers_paper_changelist",
        "admin:papers_paper_add",
        "admin:auth_user_add",
    ],
)
def test_admin_pages_need_no_inline_script_under_the_policy(admin_client, url_name):
    make_paper("Admin Paper")
    response = admin_client.get(reverse(url_name))
    assert response.status_code == 200
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert not INLINE_SCRIPT.search(response.content), INLINE_SCRIPT.search(response.content)
    assert not EVENT_HANDLER_ATTRIBUTE.search(response.content)


def test_admin_change_form_needs_no_inline_script_under_the_policy(admin_client):
    paper = make_paper("Admin Paper")
    response = admin_client.get(reverse("admin:papers_paper_change", args=[paper.pk]))
    assert response.status_code == 200
    assert not INLINE_SCRIPT.search(response.content)
    assert not EVENT_HANDLER_ATTRIBUTE.search(response.content)


def test_public_pages_need_no_inline_script(client, db):
    paper = make_paper("Public Paper", authors=["Ada Lovelace"])
    for url in [reverse("papers:list"), paper.get_absolute_url(), reverse("login")]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert not INLINE_SCRIPT.search(response.content), url
        assert not EVENT_HANDLER_ATTRIBUTE.search(response.content), url


def test_debug_error_pages_stay_readable_in_development(client, db, settings):
    settings.DEBUG = True
    assert "Content-Security-Policy" not in client.get("/no/such/page/")
    assert "Content-Security-Policy" in client.get(reverse("papers:list"))


SECURITY_HEADERS = [
    "Content-Security-Policy",
    "Permissions-Policy",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
    "X-Frame-Options",
]


def _missing_headers(response) -> list[str]:
    return [name for name in SECURITY_HEADERS if name not in response]


def test_a_bad_host_behind_the_https_redirect_still_gets_every_header(client, db, settings):
    # SecurityMiddleware asks for the host before redirecting to HTTPS: its 400 is ours too.
    settings.SECURE_SSL_REDIRECT = True
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert _missing_headers(response) == []


def test_the_https_redirect_gets_every_header(client, db, settings):
    settings.SECURE_SSL_REDIRECT = True
    response = client.get("/")
    assert response.status_code == 301
    assert _missing_headers(response) == []


def test_the_append_slash_redirect_gets_every_header(client, db):
    response = client.get("/notes")
    assert response.status_code == 301
    assert _missing_headers(response) == []


def test_static_files_get_every_header(client, settings):
    settings.WHITENOISE_USE_FINDERS = True
    response = client.get("/static/js/math.js")
    assert response.status_code == 200
    assert _missing_headers(response) == []


def test_a_logged_in_members_pages_are_never_stored_by_shared_caches(client, user):
    client.force_login(user)
    for url in [reverse("papers:list"), reverse("annotations:notes"), reverse("healthz")]:
        cache_control = client.get(url)["Cache-Control"]
        assert "private" in cache_control, url
        assert "no-store" in cache_control, url


def test_reading_list_exports_are_never_stored_by_shared_caches(client, user):
    from tests.factories import make_reading_list

    client.force_login(user)
    reading_list = make_reading_list(user, papers=[make_paper("Exported")])
    for name in ["annotations:list-export-bibtex", "annotations:list-export-csv"]:
        response = client.get(reverse(name, args=[reading_list.pk]))
        assert response.status_code == 200
        assert "private" in response["Cache-Control"]
        assert "no-store" in response["Cache-Control"]


def test_a_response_that_logs_in_is_never_stored_by_shared_caches(client, user):
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert "no-store" in response["Cache-Control"]


def test_anonymous_public_pages_leave_caching_to_the_deployment(client, db):
    make_paper("Public Paper")
    response = client.get(reverse("papers:list"))
    assert response.status_code == 200
    assert "private" not in response.get("Cache-Control", "")


def test_static_files_stay_publicly_cacheable_for_logged_in_members(client, user, settings):
    settings.WHITENOISE_USE_FINDERS = True
    client.force_login(user)
    response = client.get("/static/js/math.js")
    assert response.status_code == 200
    assert "no-store" not in response.get("Cache-Control", "")


def test_postgresql_statements_of_web_requests_are_bounded(tmp_path):
    env = {
        "DATABASE_URL": "postgres://u@127.0.0.1:5432/x",
        "DATABASE_STATEMENT_TIMEOUT_MS": "10000",
    }
    values = _settings_values(["DATABASES"], env, tmp_path)
    assert "-c statement_timeout=10000" in values["DATABASES"]
    assert "-c jit=off" in values["DATABASES"]


def test_without_a_statement_timeout_imports_and_migrations_run_unbounded(tmp_path):
    values = _settings_values(["DATABASES"], {"DATABASE_URL": "postgres://u@h:5432/x"}, tmp_path)
    assert "statement_timeout" not in values["DATABASES"]


def test_web_servers_get_the_statement_timeout_by_default():
    # manage.py commands never import config.wsgi; gunicorn and runserver do.
    code = "import os, config.wsgi; print(os.environ['DATABASE_STATEMENT_TIMEOUT_MS'])"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env={**clean, "DJANGO_SECRET_KEY": "x" * 50},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "10000"
