"""Self-service sign-up, only when ALLOW_SIGNUP is on (staff create accounts otherwise),
logging out with a word on the page the member lands on, and password resets that cannot be
used to flood a member's mailbox."""

from __future__ import annotations

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.forms import PasswordResetForm
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render

from annotations import throttle
from annotations.forms import SignupForm, SitePasswordResetForm


@login_not_required
def signup(request: HttpRequest) -> HttpResponse:
    if not settings.ALLOW_SIGNUP:
        raise Http404("Sign-up is switched off on this site.")
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    form = SignupForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}: your account is ready.")
        return redirect(settings.LOGIN_REDIRECT_URL)
    return render(request, "registration/signup.html", {"form": form})


class LogoutView(auth_views.LogoutView):
    """Django's logout; the page it redirects to (LOGOUT_REDIRECT_URL) says it worked, since
    that page looks the same as before apart from the header's links."""

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        # Not when Django renders registration/logged_out.html instead, which says so itself.
        if isinstance(response, HttpResponseRedirect):
            messages.success(request, "You have logged out.")
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset view, with at most PASSWORD_RESET_PER_ADDRESS mails to one address and
    PASSWORD_RESET_PER_CLIENT requests from one client per PASSWORD_RESET_WINDOW_SECONDS.

    An address that has had its share gets the usual "check your e-mail" page and no mail:
    whether it was throttled says nothing of whether it has an account, since every address
    asked for is counted. A client that has had its share is told plainly (429): that depends
    only on what it sent itself.
    """

    form_class = SitePasswordResetForm

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        window = settings.PASSWORD_RESET_WINDOW_SECONDS
        client = throttle.client_key(get_client_ip_address(self.request))
        if not throttle.allow(
            "password-reset-client", client, limit=settings.PASSWORD_RESET_PER_CLIENT, window=window
        ):
            return render(self.request, "429.html", status=429)
        address = form.cleaned_data["email"].casefold()
        if not throttle.allow(
            "password-reset-address",
            address,
            limit=settings.PASSWORD_RESET_PER_ADDRESS,
            window=window,
        ):
            return HttpResponseRedirect(self.get_success_url())
        return super().form_valid(form)
