"""Remembering a member's role in their session when they log in, however they log in
(password, invitation link, single sign-on), and their ORCID iD when ORCID vouches for it."""

from __future__ import annotations

from allauth.socialaccount.signals import social_account_added, social_account_updated
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from accounts import orcid
from accounts.roles import remember_role


@receiver(user_logged_in, dispatch_uid="accounts.remember_role")
def _remember_role(sender, request, user, **kwargs) -> None:
    if request is not None and hasattr(request, "session"):
        remember_role(request.session, user)


@receiver(social_account_added, dispatch_uid="accounts.orcid_added")
@receiver(social_account_updated, dispatch_uid="accounts.orcid_updated")
def _remember_orcid(sender, request, sociallogin, **kwargs) -> None:
    """A connected ORCID iD, and each sign-in with it, keeps the iD on the profile."""
    if sociallogin.account.provider == "orcid":
        orcid.remember(sociallogin.user, sociallogin.account.uid)
