"""Calling the JSON API (api/) in tests: a client carrying a member's bearer token; the
OpenAPI document's validation."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import jsonschema_rs
import schemathesis
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


def validate_openapi(document: dict) -> None:
    """Raise (jsonschema_rs.ValidationError) unless `document` is a valid OpenAPI 3.1
    document: the specification's own meta-schema (as schemathesis carries it), then every
    schema in it against JSON Schema 2020-12's, the dialect 3.1 uses, which the specification's
    meta-schema leaves unchecked."""
    schemathesis.openapi.from_dict(copy.deepcopy(document)).validate()
    for schema in _schemas(document):
        jsonschema_rs.meta.validate(schema)


def _schemas(node) -> Iterator[dict]:
    """The components' schemas, and each parameter's and media type's `schema`."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "schemas" and isinstance(value, dict):
                yield from value.values()
            elif key == "schema" and isinstance(value, dict):
                yield value
            else:
                yield from _schemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schemas(value)
