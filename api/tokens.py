"""Making, finding and revoking API tokens: 256 random bits, stored as their SHA-256."""

from __future__ import annotations

import hashlib
import secrets

from django.utils import timezone

from api.models import ApiToken

# What every token starts with: a leaked one is recognisable (secret scanners, logs).
TOKEN_PREFIX = "pb_"  # noqa: S105 (a public prefix, no secret)


def digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def create_token(*, user, name: str, scope: str) -> tuple[ApiToken, str]:
    """A new token for `user`, and the token itself: the only time it is known."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)  # 32 bytes: 256 bits
    token = ApiToken.objects.create(
        user=user, name=name, scope=scope, key_hash=digest(raw), prefix=raw[:10]
    )
    return token, raw


def token_for(raw: str) -> ApiToken | None:
    """The live token `raw` is, with its user; None for an unknown or revoked one, and for
    one of an account switched off (is_active: it can no longer log in either)."""
    found = ApiToken.objects.live().select_related("user").filter(key_hash=digest(raw)).first()
    return found if found is not None and found.user.is_active else None


def revoke(*, user, pk: int) -> bool:
    """Revoke `user`'s token `pk`; whether one was live."""
    return bool(ApiToken.objects.live().filter(user=user, pk=pk).update(revoked_at=timezone.now()))
