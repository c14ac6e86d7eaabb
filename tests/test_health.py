"""/healthz and the gunicorn settings that serve the site."""

from __future__ import annotations

import gc
import logging
import runpy
from pathlib import Path
from unittest import mock

import pytest
from django.db import OperationalError, connections
from django.template import TemplateDoesNotExist
from django.urls import reverse

from config import warmup


def _database_down():
    return mock.patch.object(
        connections["default"],
        "cursor",
        side_effect=OperationalError('connection to server at "10.0.0.5", port 5432 failed'),
    )


def test_healthz_says_ok_when_database_answers(client, db):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")
    assert "no-store" in response["Cache-Control"]


def test_healthz_answers_head(client, db):
    assert client.head(reverse("healthz")).status_code == 200


def test_healthz_refuses_post(client, db):
    assert client.post(reverse("healthz")).status_code == 405


def test_healthz_says_unavailable_without_details_when_database_is_down(client, db):
    with _database_down():
        response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.content == b"unavailable"
    assert "no-store" in response["Cache-Control"]


def test_healthz_recovers_when_database_returns(client, db):
    with _database_down():
        assert client.get(reverse("healthz")).status_code == 503
    assert client.get(reverse("healthz")).status_code == 200


def test_healthz_needs_no_login_when_login_is_required(client, db, settings):
    settings.MIDDLEWARE = [
        *settings.MIDDLEWARE,
        "django.contrib.auth.middleware.LoginRequiredMiddleware",
    ]
    assert client.get(reverse("papers:list")).status_code == 302
    assert client.get(reverse("healthz")).status_code == 200


def test_healthz_is_not_redirected_to_https(client, db, settings):
    # Load balancers probe over plain HTTP behind TLS termination.
    settings.SECURE_SSL_REDIRECT = True
    assert client.get(reverse("healthz")).status_code == 200
    response = client.get(reverse("papers:list"))
    assert response.status_code == 301
    assert response["Location"].startswith("https://")


GUNICORN_CONF = Path(__file__).resolve().parent.parent / "config" / "gunicorn.conf.py"


def test_gunicorn_defaults_are_local_and_bounded(monkeypatch):
    for name in ["GUNICORN_BIND", "WEB_CONCURRENCY", "GUNICORN_THREADS", "GUNICORN_TIMEOUT"]:
        monkeypatch.delenv(name, raising=False)
    conf = runpy.run_path(str(GUNICORN_CONF))
    assert conf["bind"] == "127.0.0.1:8000"
    assert 3 <= conf["workers"] <= 12
    assert conf["timeout"] == 30
    assert conf["accesslog"] == "-"
    assert "%(M)s" in conf["access_log_format"]
    assert conf["max_requests"] > 0
    assert conf["max_requests_jitter"] > 0


def test_gunicorn_reads_its_settings_from_the_environment(monkeypatch):
    monkeypatch.setenv("GUNICORN_BIND", "0.0.0.0:9000")
    monkeypatch.setenv("WEB_CONCURRENCY", "7")
    monkeypatch.setenv("GUNICORN_THREADS", "4")
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "10.0.0.1")
    conf = runpy.run_path(str(GUNICORN_CONF))
    assert (conf["bind"], conf["workers"], conf["threads"]) == ("0.0.0.0:9000", 7, 4)
    assert conf["forwarded_allow_ips"] == "10.0.0.1"


def test_gunicorn_rejects_a_non_numeric_worker_count(monkeypatch):
    monkeypatch.setenv("WEB_CONCURRENCY", "many")
    with pytest.raises(SystemExit, match="WEB_CONCURRENCY"):
        runpy.run_path(str(GUNICORN_CONF))


@pytest.fixture
def static_files_not_collected(settings, tmp_path):
    # Production's manifest storage over a STATIC_ROOT that `collectstatic` never filled.
    settings.STATIC_ROOT = tmp_path / "staticfiles"
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }


def test_healthz_says_unavailable_when_static_files_were_not_collected(
    client, db, static_files_not_collected
):
    # Every page of such a host fails; the load balancer must not send it traffic.
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.content == b"unavailable"


def test_a_gunicorn_worker_freezes_what_it_loaded():
    """The collector skips the objects a worker holds for its whole life (the hook in
    config/gunicorn.conf.py)."""
    conf = runpy.run_path(str(GUNICORN_CONF))
    before = gc.get_freeze_count()
    try:
        conf["post_worker_init"](worker=None)
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()


def test_a_gunicorn_worker_loads_its_pages_first_without_the_database(caplog):
    """post_worker_init loads the URLconf, the page templates and the model before the first
    request (config/warmup.py), and touches no database: this test has none, and any query
    would be logged as a failure."""
    conf = runpy.run_path(str(GUNICORN_CONF))
    try:
        with caplog.at_level(logging.WARNING, logger="config.warmup"):
            conf["post_worker_init"](worker=None)
    finally:
        gc.unfreeze()
    assert caplog.records == []


def test_a_warm_up_that_fails_leaves_the_worker_to_start(monkeypatch, caplog):
    def missing(name):
        raise TemplateDoesNotExist(name)

    monkeypatch.setattr(warmup, "get_template", missing)
    with caplog.at_level(logging.ERROR, logger="config.warmup"):
        warmup.warm_up()
    assert [record.getMessage() for record in caplog.records] == [
        "Warming up the worker failed; its first requests will load the rest"
    ]
