"""Which address a request comes from, given the proxies this deployment trusts.

Login lockouts (django-axes, AXES_CLIENT_IP_CALLABLE) count failures per client address with
this rule, set by the same two variables as gunicorn's X-Forwarded-Proto handling:
DJANGO_BEHIND_PROXY and FORWARDED_ALLOW_IPS (addresses or networks).
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _address(text: str) -> str | None:
    """`text` as a canonical IP address (one spelling per address on every database), or None.

    Some proxies append the port they saw: 192.0.2.1:443, [2001:db8::1]:443.
    """
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def _is_trusted_proxy(address: str) -> bool:
    """Whether `address` is one of settings.FORWARDED_ALLOW_IPS (addresses or networks, or *)."""
    ip = ipaddress.ip_address(address)
    for entry in settings.FORWARDED_ALLOW_IPS:
        if entry == "*":
            return True
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def client_address(request: HttpRequest) -> str | None:
    """The address of the client that sent `request`, or None when it has no usable one.

    The socket peer, unless it is one of our own proxies (DJANGO_BEHIND_PROXY and
    FORWARDED_ALLOW_IPS): then X-Forwarded-For is read from the right, where each trusted proxy
    appended the address it saw, and the first address that is not a trusted proxy is the
    client. Entries further left come from the client and can be forged; a client that talks
    to us directly cannot make us read the header at all. A hop that is not an IP address (a
    proxy passing on what the client wrote) ends the walk with None: such requests share one
    count instead of choosing their own.
    """
    peer = _address(request.META.get("REMOTE_ADDR", ""))
    if peer is None or not (settings.BEHIND_PROXY and _is_trusted_proxy(peer)):
        return peer
    forwarded = request.headers.get("X-Forwarded-For", "")
    hops = [hop for hop in forwarded.split(",") if hop.strip()]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None or not _is_trusted_proxy(address):
            return address
    # Every hop is one of our proxies: the request started inside our own network.
    return _address(hops[0]) if hops else peer
