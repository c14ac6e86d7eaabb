"""Errors reach someone (issue 29, point 7): log lines say when, how bad, from which logger
and for which request; a server error is mailed to the admins; the request id goes back to
the client."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest
from django.core import mail
from django.test import Client, override_settings
from django.urls import path

from config.request_log import HEADER, RequestIdFilter, current_request_id

logged_ids: list[str] = []


def logs_and_fails(request):
    logged_ids.append(current_request_id())
    raise RuntimeError("the view broke")


urlpatterns = [path("boom/", logs_and_fails)]


def test_a_log_line_has_time_level_logger_and_request_id(settings):
    formatter = logging.Formatter(settings.LOGGING["formatters"]["lines"]["format"])
    record = logging.LogRecord("papers.importing", logging.WARNING, __file__, 1, "hi", (), None)
    RequestIdFilter().filter(record)
    line = formatter.format(record)
    assert line.endswith(" WARNING papers.importing [-] hi")
    assert line[:4].isdigit()  # the time first, 2026-12-05 07:45:34,768


@pytest.mark.django_db
def test_every_response_names_its_request_and_keeps_a_proxys_id(client):
    own = client.get("/healthz")[HEADER]
    assert len(own) == 32 and own != client.get("/healthz")[HEADER]
    given = client.get("/healthz", headers={HEADER: "3f2a9c1d8e7b4a60"})[HEADER]
    assert given == "3f2a9c1d8e7b4a60"
    # Anything that is not an id (text for our logs, say) is replaced.
    forged = client.get("/healthz", headers={HEADER: "x\tERROR forged line"})[HEADER]
    assert forged != "x\tERROR forged line" and len(forged) == 32


@pytest.mark.django_db
@override_settings(
    ROOT_URLCONF="tests.test_error_reporting",
    DEBUG=False,
    ADMINS=[("Ops", "ops@lab.example")],
)
def test_a_server_error_is_mailed_to_the_admins_with_its_request_id():
    logged_ids.clear()
    response = Client(raise_request_exception=False).get("/boom/", headers={HEADER: "req-12345678"})
    assert response.status_code == 500 and response[HEADER] == "req-12345678"
    assert logged_ids == ["req-12345678"]
    (message,) = mail.outbox
    assert message.to == ["ops@lab.example"] and "RuntimeError" in message.body
    assert "the view broke" in message.body


def test_admins_and_the_sender_are_read_from_the_environment():
    code = "from django.conf import settings; print(settings.ADMINS, settings.SERVER_EMAIL)"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_ADMINS": "Ana Lab <ana@lab.org>, ops@lab.org",
        "SERVER_EMAIL": "errors@lab.org",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[('Ana Lab', 'ana@lab.org'), ('', 'ops@lab.org')] errors@lab.org"


def test_a_sentry_dsn_turns_sentry_on_without_sending_member_data():
    code = (
        "from django.conf import settings; settings.SENTRY_DSN; import sentry_sdk; "
        "client = sentry_sdk.get_client(); "
        "print(client.is_active(), client.options['send_default_pii'], "
        "client.options['traces_sample_rate'])"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SENTRY_DSN": "https://public@sentry.example/1",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["True", "False", "0.0"]
