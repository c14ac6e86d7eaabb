"""API tokens (api/, docs/api.md): made and revoked on the member's tokens page, shown once,
stored as a SHA-256 only, scoped read or read-write, and rate-limited per token."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.urls import reverse

from api.models import ApiToken, TokenScope
from tests.api_helpers import bearer_client, post_json, token_client
from tests.factories import make_paper, make_reading_list

pytestmark = pytest.mark.django_db

TOKENS = reverse("api:tokens")
LISTS = "/api/v1/lists"


def _make_token(client, scope: str = "read") -> str:
    response = client.post(TOKENS, {"name": "Slack bot", "scope": scope})
    assert response.status_code == 200
    return re.search(r"<code data-token>([^<]+)</code>", response.content.decode()).group(1)


def test_a_token_is_shown_once_and_stored_only_as_its_hash(client, user):
    client.force_login(user)
    raw = _make_token(client)
    token = ApiToken.objects.get(user=user)
    assert len(raw) > 40  # pb_ and 256 random bits in base64
    assert token.key_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in repr(list(ApiToken.objects.values_list()))
    page = client.get(TOKENS).content.decode()
    assert "Slack bot" in page and token.prefix in page
    assert raw not in page  # never again


def test_a_revoked_token_is_refused(client, user):
    client.force_login(user)
    raw = _make_token(client)
    assert bearer_client(raw).get(LISTS).status_code == 200
    token = ApiToken.objects.get(user=user)
    assert client.post(reverse("api:token-revoke", args=[token.pk])).status_code == 302
    assert bearer_client(raw).get(LISTS).status_code == 401
    assert bearer_client("pb_made-up").get(LISTS).status_code == 401


def test_a_member_cannot_revoke_another_members_token(client, user, other_user):
    client.force_login(user)
    _make_token(client)
    token = ApiToken.objects.get(user=user)
    client.force_login(other_user)
    assert client.post(reverse("api:token-revoke", args=[token.pk])).status_code == 404
    assert ApiToken.objects.live().filter(pk=token.pk).exists()


def test_a_token_acts_as_its_member(user, other_user):
    make_reading_list(user, "Alice's private list")
    make_reading_list(other_user, "Bob's private list")
    names = [each["name"] for each in token_client(user).get(LISTS).json()]
    assert names == ["Alice's private list"]


def test_a_read_token_is_refused_every_write(user):
    paper = make_paper("Paper to note")
    reading_list = make_reading_list(user, "Mine")
    reader = token_client(user, TokenScope.READ)
    writes = [
        (f"/api/v1/lists/{reading_list.pk}/items", {"paper": paper.pk}),
        ("/api/v1/notes", {"paper": paper.pk, "body": "A note"}),
        (f"/api/v1/papers/{paper.pk}/tags", {"name": "robotics"}),
    ]
    for url, data in writes:
        assert post_json(reader, url, data).status_code == 403, url
    assert not reading_list.items.exists() and not paper.notes.exists()
    # The positive control: the same writes with a read-write token.
    writer = token_client(user, TokenScope.WRITE)
    assert [post_json(writer, url, data).status_code for url, data in writes] == [201] * 3


def test_a_token_past_its_rate_limit_is_answered_429_with_retry_after(settings, user):
    settings.API_TOKEN_RATE_LIMIT = 3
    settings.API_TOKEN_RATE_WINDOW = 60
    client = token_client(user)
    assert [client.get(LISTS).status_code for _ in range(3)] == [200] * 3
    refused = client.get(LISTS)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    # Each token has its own count.
    assert token_client(user).get(LISTS).status_code == 200


def test_the_session_works_and_needs_csrf_on_writes(user):
    from django.test import Client

    paper = make_paper("Paper to note")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get(LISTS).status_code == 200
    refused = post_json(client, "/api/v1/notes", {"paper": paper.pk, "body": "A note"})
    assert refused.status_code == 403
    assert not paper.notes.exists()
    # The positive control: the site's page sends its CSRF token.
    client.get(TOKENS)
    csrf = client.cookies["csrftoken"].value
    response = client.post(
        "/api/v1/notes",
        {"paper": paper.pk, "body": "A note"},
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )
    assert response.status_code == 201


def test_no_cors_headers(user):
    response = token_client(user).get(LISTS, headers={"Origin": "https://elsewhere.example"})
    assert not [name for name in response.headers if name.lower().startswith("access-control")]
