"""Logging in, with django-axes refusing password guessing.

django-axes counts failed logins in the database per username and client address together
(config/proxies.py says which address). Once a pair reaches the limit, its authentication
backend refuses that username from that address before any password is checked, until the
cool-off has passed or a curator deletes the lockout in admin (Axes > Access attempts). The
same member logging in from elsewhere is not refused: a guesser cannot lock them out. The forms
here turn that refusal into the login page's own error, the same whether or not the user exists.
"""

from __future__ import annotations

from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_ip_address
from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse

LOCKED_OUT_MESSAGE = (
    "Too many failed login attempts. For your security, logging in is paused for a while; "
    "please try again later."
)
# axes keeps usernames in a 255-character column; casefolding can lengthen a name.
_USERNAME_COLUMN = 255


def lockout_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The name failures are counted under (AXES_USERNAME_CALLABLE): letter case does not
    matter, so ALICE and alice share one count."""
    source = credentials or request.POST
    username = source.get("username")
    return username.casefold()[:_USERNAME_COLUMN] if username else None


def login_page_response(
    request: HttpRequest, original_response: HttpResponse, credentials: dict[str, Any] | None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the login page already says why (LockoutAwareLoginMixin), so
    axes' middleware keeps the page the view made instead of a page of its own."""
    return original_response


class LockoutAwareLoginMixin:
    """For AuthenticationForm subclasses: a login refused by axes, or the failure that reached
    the limit, shows the lockout message; a successful login forgets its username's failures
    from its own address (not from others: the member logging in does not clear a guesser's
    lockout at the same account)."""

    request: HttpRequest | None

    def clean(self) -> dict[str, Any]:
        try:
            cleaned_data = super().clean()  # type: ignore[misc]
        except forms.ValidationError:
            if getattr(self.request, "axes_locked_out", False):
                raise forms.ValidationError(LOCKED_OUT_MESSAGE, code="throttled") from None
            raise
        # Only a login that succeeded: clean() also returns without authenticating when the
        # password is missing, and that must not lift a lockout between guesses.
        if self.request is not None and self.get_user() is not None:  # type: ignore[attr-defined]
            username = lockout_username(self.request, {"username": cleaned_data["username"]})
            address = get_client_ip_address(self.request)
            # Without an address, reset_attempts would forget the username's failures from
            # every address.
            if username and address:
                AxesProxyHandler.reset_attempts(username=username, ip_address=address)
        return cleaned_data


class LoginForm(LockoutAwareLoginMixin, AuthenticationForm):
    pass


class AdminLoginForm(LockoutAwareLoginMixin, AdminAuthenticationForm):
    pass
