"""The single sign-on routes under accounts/sso/: allauth's social-login views and the two
providers' login and callback views, nothing of allauth's password accounts (the site's own
login, sign-up and reset pages stay, with django-axes). A provider not configured answers 404."""

from django.contrib.auth.decorators import login_not_required
from django.urls import include, path
from django.views.generic import RedirectView, TemplateView

urlpatterns = [
    path("", include("allauth.socialaccount.urls")),
    path("", include("allauth.socialaccount.providers.orcid.urls")),
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
