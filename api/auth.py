"""Who is calling the API (docs/api.md): a bearer token, else the site's session (with its
CSRF check on writes), else a visitor. A token is counted against its rate limit on every
request (annotations.throttle, the site's limiter); the request then carries the token's
member as `request.user`, so every selector reads it as a page would."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from ninja.errors import AuthenticationError, HttpError
from ninja.security import HttpBearer, SessionAuth

from accounts.roles import is_member
from annotations import throttle
from api.models import ApiToken
from api.tokens import token_for

# What a visitor's request is authenticated as: the site's anonymous user.
VISITOR = "visitor"


class RateLimited(Exception):
    """The token has made its RATE_LIMIT requests in the window: answered 429 (api.api)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("Too many requests for this token.")
        self.retry_after = retry_after


class TokenAuth(HttpBearer):
    """`Authorization: Bearer <token>`. An unknown or revoked token is refused (401), never
    taken for a visitor: a script with a stale token should fail loudly."""

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken:
        found = token_for(token)
        if found is None:
            raise AuthenticationError(401, "Unknown or revoked token.")
        window = settings.API_TOKEN_RATE_WINDOW
        limit = settings.API_TOKEN_RATE_LIMIT
        if not throttle.allow("api-token", str(found.pk), limit=limit, window=window):
            raise RateLimited(retry_after=window)
        request.user = found.user
        return found


def json_only(request: HttpRequest) -> None:
    """Writes take JSON: any other body is refused (415) before anyone is authenticated. A
    form's body has been read by the site's middleware by then, and is not the API's format."""
    if request.content_type != "application/json":
        raise HttpError(415, "Send the body as application/json.")


def visitor(request: HttpRequest) -> str | None:
    """Anyone else reads as a visitor of the site does; where every page needs login
    (REQUIRE_LOGIN), a visitor is refused (401) as the pages refuse them."""
    if settings.REQUIRE_LOGIN:
        return None
    request.user = AnonymousUser()
    return VISITOR


token_auth = TokenAuth()
# The site's own pages call the API with their session; ninja checks CSRF on unsafe methods.
session_auth = SessionAuth(csrf=True)
READERS: list[Any] = [token_auth, session_auth, visitor]
WRITERS: list[Any] = [json_only, token_auth, session_auth]


def writer(request: HttpRequest) -> Any:
    """The member a write is made for: a read-scoped token, and a guest (who may write none
    of the lab's things on the site either), are refused (403)."""
    auth = getattr(request, "auth", None)
    if isinstance(auth, ApiToken) and not auth.can_write:
        raise HttpError(403, "This token may only read.")
    if not is_member(request.user):
        raise HttpError(403, "Only the lab's members may write.")
    return request.user
