"""Content-Security-Policy and Permissions-Policy, set by django-csp and django-permissions-policy:
the exact values, on every kind of response. (tests/test_security.py checks each directive.)"""

from __future__ import annotations

from django.test import Client
from django.urls import reverse

PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), "
    "microphone=(), payment=(), usb=()"
)


def test_permissions_policy_switches_off_every_feature_we_never_use(client, db):
    response = client.get(reverse("papers:list"))
    assert response.status_code == 200
    assert response["Permissions-Policy"] == PERMISSIONS_POLICY


def test_our_error_pages_obey_the_policy_in_production(client, db):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert response["Permissions-Policy"] == PERMISSIONS_POLICY


def test_a_refusal_made_by_middleware_gets_both_policies(db):
    # CsrfViewMiddleware answers a POST without a token itself, before any view runs.
    client = Client(enforce_csrf_checks=True)
    response = client.post(reverse("login"), {"username": "alice", "password": "x"})
    assert response.status_code == 403
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert response["Permissions-Policy"] == PERMISSIONS_POLICY
