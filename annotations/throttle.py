"""At most `limit` actions per key in any `window` seconds, counted in the shared cache.

Each key has `limit` slots; an action claims a free one with cache.add(), which only one
process can win (an INSERT on the database cache's primary key, an atomic add on memcached and
Redis), so twenty requests in the same second cannot all pass by reading the same count. A slot
frees itself `window` seconds after it was claimed: a sliding window, not a counter that resets
on the hour.
"""

from __future__ import annotations

import hashlib
import ipaddress

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

# An IPv6 host is handed a /64 network: counting single addresses would give it 2**64 tries.
_IPV6_CLIENT_PREFIX = 64


def client_key(address: str | None) -> str:
    """What a client is counted under: its address (as axes' get_client_ip_address finds it,
    config/proxies.py), its /64 network for IPv6; clients without a usable address share one
    count."""
    if address is None:
        return "unknown"
    ip = ipaddress.ip_address(address)
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/{_IPV6_CLIENT_PREFIX}", strict=False))
    return str(ip)


def allow(scope: str, key: str, *, limit: int, window: int) -> bool:
    """Whether one more action for `key` fits within `limit` per `window` seconds; if so, it is
    counted."""
    # Hashed: keys are member input (an e-mail address), and the cache wants short, plain keys.
    digest = hashlib.sha256(key.encode()).hexdigest()
    slots = [f"throttle:{scope}:{digest}:{index}" for index in range(limit)]
    taken = cache.get_many(slots)
    # A slot free a moment ago may be claimed meanwhile by another request: try the next.
    return any(cache.add(slot, 1, timeout=window) for slot in slots if slot not in taken)


def too_many_requests(request: HttpRequest, message: str, *, retry_after: int) -> HttpResponse:
    """The 429 page saying `message`, which says what was refused and when to try again."""
    response = render(request, "429.html", {"message": message}, status=429)
    response["Retry-After"] = str(retry_after)
    return response
