from django.conf import settings


def site(request):
    return {"SITE_NAME": settings.SITE_NAME, "ALLOW_SIGNUP": settings.ALLOW_SIGNUP}
