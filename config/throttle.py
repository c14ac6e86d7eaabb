"""Login throttling against password guessing.

Failed logins are counted per username and per client address in Django's cache (the database
cache, so every worker and host shares the counts). Once either count reaches
settings.LOGIN_MAX_FAILURES, logins for that username or from that address are refused for
settings.LOGIN_LOCKOUT_SECONDS, with the same message whether or not the user exists.
"""

from __future__ import annotations

import hashlib
import ipaddress
import time

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache
from django.http import HttpRequest

THROTTLED_MESSAGE = (
    "Too many failed login attempts. For your security, logging in is paused for a while; "
    "please try again later."
)


def _is_trusted_proxy(address: str) -> bool:
    """Whether `address` is one of settings.FORWARDED_ALLOW_IPS (addresses or networks, or *)."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    for entry in settings.FORWARDED_ALLOW_IPS:
        if entry == "*":
            return True
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def client_address(request: HttpRequest | None) -> str:
    """The address login failures are counted for.

    The socket peer, unless it is one of our own proxies (DJANGO_BEHIND_PROXY and
    FORWARDED_ALLOW_IPS): then X-Forwarded-For is read from the right, where each trusted proxy
    appended the address it saw, and the first address that is not a trusted proxy is the
    client. Entries further left come from the client and can be forged; a client that talks
    to us directly cannot make us read the header at all.
    """
    if request is None:
        return ""
    peer = request.META.get("REMOTE_ADDR", "")
    if not (settings.BEHIND_PROXY and _is_trusted_proxy(peer)):
        return peer
    forwarded = request.headers.get("X-Forwarded-For", "")
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _is_trusted_proxy(hop):
            return hop
    return hops[0] if hops else peer


def _key(kind: str, value: str) -> str:
    # Hashed so any username (any length, any characters) makes a valid cache key.
    digest = hashlib.sha256(value.encode()).hexdigest()
    return f"login-failures:{kind}:{digest}"


def _keys(username: str, address: str) -> list[str]:
    keys = [_key("user", username.casefold())]
    if address:
        keys.append(_key("addr", address))
    return keys


def is_locked_out(username: str, address: str) -> bool:
    now = time.time()
    for entry in cache.get_many(_keys(username, address)).values():
        count, expires_at = entry
        if count >= settings.LOGIN_MAX_FAILURES and expires_at > now:
            return True
    return False


def record_failure(username: str, address: str) -> None:
    """Counts one failure; a window opens at the first failure and restarts at lockout.

    Read-then-write, so two workers failing at the same instant may count once: the limit can
    be overshot by the number of concurrent attempts, which still stops guessing at scale.
    """
    now = time.time()
    window = settings.LOGIN_LOCKOUT_SECONDS
    current = cache.get_many(_keys(username, address))
    for key in _keys(username, address):
        count, expires_at = current.get(key, (0, 0.0))
        if expires_at <= now:
            count, expires_at = 0, now + window
        count += 1
        if count >= settings.LOGIN_MAX_FAILURES:
            expires_at = now + window
        cache.set(key, (count, expires_at), timeout=max(1, int(expires_at - now) + 1))


def clear_username_failures(username: str) -> None:
    cache.delete(_key("user", username.casefold()))


class ThrottledLoginMixin:
    """For AuthenticationForm subclasses: refuse while locked out, count failures."""

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if not username or not password:
            return super().clean()
        address = client_address(self.request)
        if is_locked_out(username, address):
            raise forms.ValidationError(THROTTLED_MESSAGE, code="throttled")
        try:
            cleaned_data = super().clean()
        except forms.ValidationError:
            if self.user_cache is None:
                record_failure(username, address)
            raise
        clear_username_failures(username)
        return cleaned_data


class ThrottledAuthenticationForm(ThrottledLoginMixin, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(ThrottledLoginMixin, AdminAuthenticationForm):
    pass
