"""Single sign-on through django-allauth: who may join through it, with which role.

OpenID Connect (settings.OIDC_*): a person the provider vouches for joins when the provider
says their address is verified and either the address is at OIDC_ALLOWED_DOMAIN (they join as
OIDC_DOMAIN_ROLE, a member unless configured) or it has an open invitation (they join with the
invitation's role, and the invitation is used). Anyone else is refused with a page saying so.
Later sign-ins find the same account by the provider's subject (allauth's SocialAccount).

ORCID: signs in an account that has connected its ORCID iD, and a member connects theirs from
the login page's ORCID button while logged in; nobody joins through ORCID alone (it vouches
for no address). The iD is kept on the member's profile (accounts.orcid).
"""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.models import SocialLogin
from django.conf import settings
from django.http import HttpRequest
from django.shortcuts import render

from accounts.invitations import accept, open_invitation_for
from accounts.models import Role
from accounts.roles import set_role

NOT_INVITED = (
    "Your sign-in worked, but this address has no invitation here. Ask a curator to invite it."
)
NOT_VERIFIED = (
    "Your provider did not confirm that this e-mail address is yours, so it cannot admit you."
)
ORCID_NO_ACCOUNT = (
    "No account here is connected to this ORCID iD. Log in first, then connect your ORCID iD."
)
PASSWORD_BACKEND = "django.contrib.auth.backends.ModelBackend"  # noqa: S105 (a path)


def verified_email(sociallogin: SocialLogin) -> str | None:
    for address in sociallogin.email_addresses:
        if address.verified and address.email:
            return address.email.casefold()
    return None


def domain_admits(email: str) -> bool:
    domain = settings.OIDC_ALLOWED_DOMAIN
    return bool(domain) and email.rpartition("@")[2] == domain


def refuse(request: HttpRequest, reason: str) -> ImmediateHttpResponse:
    return ImmediateHttpResponse(
        render(request, "accounts/sso_refused.html", {"reason": reason}, status=403)
    )


class SiteAccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        # allauth's own sign-up form is not mounted; the site's is annotations.views.accounts.
        return False

    def login(self, request: HttpRequest, user) -> None:
        # allauth would pick the first backend that has get_user, axes' (which finds nobody):
        # the session must name the backend that loads the account on later requests.
        if not hasattr(user, "backend"):
            user.backend = PASSWORD_BACKEND
        super().login(request, user)


class SiteSocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest, sociallogin: SocialLogin) -> bool:
        if sociallogin.account.provider == "orcid":
            raise refuse(request, ORCID_NO_ACCOUNT)
        email = verified_email(sociallogin)
        if email is None:
            raise refuse(request, NOT_VERIFIED)
        if domain_admits(email) or open_invitation_for(email) is not None:
            return True
        raise refuse(request, NOT_INVITED)

    def save_user(self, request: HttpRequest, sociallogin: SocialLogin, form=None):
        user = super().save_user(request, sociallogin, form)
        email = verified_email(sociallogin) or ""
        invitation = open_invitation_for(email)
        if invitation is not None:
            accept(invitation, user=user)
        else:
            set_role(user, Role(settings.OIDC_DOMAIN_ROLE))
        return user
