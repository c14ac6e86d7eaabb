from django.conf import settings

from accounts.roles import is_guest


def site(request):
    return {
        "SITE_NAME": settings.SITE_NAME,
        "ALLOW_SIGNUP": settings.ALLOW_SIGNUP,
        # The login page offers a sign-in button for each configured provider (accounts/sso.py).
        "OIDC_PROVIDER_NAME": settings.OIDC_PROVIDER_NAME if settings.OIDC_ISSUER else "",
        "ORCID_ENABLED": bool(settings.ORCID_CLIENT_ID),
        # Called by the template only where it asks (the header), never by an error page.
        "user_is_guest": lambda: is_guest(request.user),
    }
