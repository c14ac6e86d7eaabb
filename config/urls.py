from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.generic import RedirectView

from annotations.login import AdminLoginForm, LoginForm
from annotations.views.accounts import LogoutView, PasswordResetView, signup
from api.api import api_urls
from config.health import healthz

# The admin has its own login page: it shows lockouts like ours.
admin.site.login_form = AdminLoginForm
# No collapsible model sidebar: its deferred script moved every admin page right after the first
# paint (CLS 0.19), and open it took a quarter of a 1280 px window from the changelists'
# columns. The index and the breadcrumbs lead everywhere it did.
admin.site.enable_nav_sidebar = False

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Asked for by browsers and feed readers whatever the pages' <link rel="icon"> says. The
    # static URL is looked up per request: at import, a stale manifest would stop every command.
    path("favicon.ico", RedirectView.as_view(url=lazy(static, str)("img/favicon.svg"))),
    path("", include("papers.urls")),
    path("", include("annotations.urls")),
    path("", include("alerts.urls")),
    path("", include("recommendations.urls")),
    path("", include("pdfs.urls")),
    path("", include("highlights.urls")),
    path("", include("groups.urls")),
    path("api/v1/", api_urls()),
    path("", include("api.urls")),
    # Before the contrib include so it wins over that include's plain login view.
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(
            authentication_form=LoginForm,
            template_name="registration/login.html",
        ),
        name="login",
    ),
    path(
        "accounts/password_reset/",
        PasswordResetView.as_view(),
        name="password_reset",
    ),
    path("accounts/signup/", signup, name="signup"),
    # Before the contrib include, as login: Django's logout view with a "logged out" message.
    path("accounts/logout/", LogoutView.as_view(), name="logout"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("accounts.urls")),
    path("accounts/sso/", include("accounts.sso_urls")),
    path("admin/", admin.site.urls),
]

handler500 = "config.errors.server_error"
