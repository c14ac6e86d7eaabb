"""Self-service sign-up, only when ALLOW_SIGNUP is on (staff create accounts otherwise), and
logging out with a word on the page the member lands on."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render

from annotations.forms import SignupForm


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
