"""How much one request may export, and how many exports run at once.

An export is the costliest thing a visitor can ask for: a whole catalogue once held a worker
until gunicorn killed it, cutting the file short. So a request may write at most
`export_limit(user)` papers (settings EXPORT_MAX_ANONYMOUS, EXPORT_MAX_MEMBER; a member's
larger export is prepared in the background instead), and `export_slot` lets one export per
client run at a time and EXPORT_CONCURRENCY on the whole site, so pages keep their workers.

The slots are cache keys taken with `cache.add` (atomic in every backend, and shared by every
worker and server through the database cache). Each expires a little after the export's time
limit, so a worker killed mid-export cannot hold its slot for longer than that.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

from annotations import throttle

_KEY_PREFIX = "export-slot"
# A slot outlives its export's time limit by this much, in case a worker dies holding it.
_SLOT_MARGIN_SECONDS = 10


class ExportBusy(Exception):
    """No slot: the client already has an export running, or the site is at its limit."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


def export_limit(user) -> int:
    """How many papers `user` may export in one request."""
    if user.is_authenticated:
        return settings.EXPORT_MAX_MEMBER
    return settings.EXPORT_MAX_ANONYMOUS


def client_key(request: HttpRequest) -> str:
    """Who is exporting: a member by account (from any address), a visitor by address (as
    the throttles count clients: an IPv6 host by its /64 network)."""
    if request.user.is_authenticated:
        return f"user:{request.user.pk}"
    return "client:" + throttle.client_key(get_client_ip_address(request))


@contextmanager
def export_slot(request: HttpRequest) -> Iterator[None]:
    """Hold the client's export slot and one of the site's for the duration of an export.

    Raises ExportBusy when either is taken; the slots are given back however the block ends.
    """
    timeout = settings.EXPORT_TIME_LIMIT + _SLOT_MARGIN_SECONDS
    mine = f"{_KEY_PREFIX}:client:{client_key(request)}"
    if not cache.add(mine, 1, timeout):
        raise ExportBusy(
            "An export of yours is still being written. Wait for it to finish, then try again.",
            retry_after=settings.EXPORT_TIME_LIMIT,
        )
    site_slot = None
    try:
        for number in range(settings.EXPORT_CONCURRENCY):
            key = f"{_KEY_PREFIX}:site:{number}"
            if cache.add(key, 1, timeout):
                site_slot = key
                break
        if site_slot is None:
            raise ExportBusy(
                "Other exports are being written right now. Try again in a few seconds.",
                retry_after=5,
            )
        yield
    finally:
        if site_slot is not None:
            cache.delete(site_slot)
        cache.delete(mine)
