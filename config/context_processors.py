from django.conf import settings


def site(request):
    return {
        "SITE_NAME": settings.SITE_NAME,
        "ALLOW_SIGNUP": settings.ALLOW_SIGNUP,
        # The login page offers a sign-in button for each configured provider (accounts/sso.py).
        "OIDC_PROVIDER_NAME": settings.OIDC_PROVIDER_NAME if settings.OIDC_ISSUER else "",
        "ORCID_ENABLED": bool(settings.ORCID_CLIENT_ID),
    }
