"""The single sign-on routes under accounts/sso/: allauth's social-login views and the two
providers' login and callback views, nothing of allauth's password accounts (the site's own
login, sign-up and reset pages stay, with django-axes). A provider not configured answers 404."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.orcid import views as orcid_views
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import include, path
from django.views.generic import RedirectView, TemplateView


def _unconfigured_is_404(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """allauth's OpenID Connect views answer 404 for a provider not configured; its ORCID
    views raise (a 500): the same 404 here."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except SocialApp.DoesNotExist:
            raise Http404("ORCID sign-in is not configured on this site.") from None

    return login_not_required(wrapped)


urlpatterns = [
    path("", include("allauth.socialaccount.urls")),
    # allauth's own ORCID routes (providers.orcid.urls), each wrapped.
    path("orcid/login/", _unconfigured_is_404(orcid_views.oauth2_login), name="orcid_login"),
    path(
        "orcid/login/callback/",
        _unconfigured_is_404(orcid_views.oauth2_callback),
        name="orcid_callback",
    ),
    path("", include("allauth.socialaccount.providers.openid_connect.urls")),
    # Names allauth reverses in the flows above, answered by the site's own pages.
    path(
        "login/",
        login_not_required(RedirectView.as_view(pattern_name="login", query_string=True)),
        name="account_login",
    ),
    path(
        "inactive/",
        login_not_required(TemplateView.as_view(template_name="accounts/inactive.html")),
        name="account_inactive",
    ),
]
