"""The header's unread notification count."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from annotations import discussion


def notifications(request: HttpRequest) -> dict[str, object]:
    """Counted only when a page shows it (the header, for members): one query then, none for
    anonymous visitors or pages without the header (the admin)."""

    def count() -> int:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return 0
        return discussion.unread_count(user)

    return {"unread_notifications": SimpleLazyObject(count)}
