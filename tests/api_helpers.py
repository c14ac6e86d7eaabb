"""Calling the JSON API (api/) in tests: a client carrying a member's bearer token."""

from __future__ import annotations

from django.test import Client

from api.models import TokenScope
from api.tokens import create_token


def token_client(user, scope: str = TokenScope.WRITE) -> Client:
    """A client without a session, sending a new token of `user` with `scope`."""
    _token, raw = create_token(user=user, name="Test script", scope=scope)
    return bearer_client(raw)


def bearer_client(raw: str) -> Client:
    return Client(headers={"Authorization": f"Bearer {raw}"})


def post_json(client: Client, url: str, data: dict):
    return client.post(url, data, content_type="application/json")
