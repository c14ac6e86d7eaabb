"""The member's API tokens page: make a token (shown once, in the answer to the POST that
made it) and revoke one. A token acts for its member only."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from api.forms import TokenForm
from api.models import ApiToken
from api.tokens import create_token, revoke


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def tokens_page(request: HttpRequest) -> HttpResponse:
    made = None
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        # Rendered, not redirected: the token is in this answer and nowhere else.
        _token, made = create_token(
            user=request.user, name=form.cleaned_data["name"], scope=form.cleaned_data["scope"]
        )
        form = TokenForm()
    tokens = ApiToken.objects.filter(user=cast(User, request.user))
    return render(request, "api/tokens.html", {"form": form, "tokens": tokens, "made": made})


@require_POST
@login_required
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    if not revoke(user=request.user, pk=pk):
        raise Http404("No such token.")
    messages.success(request, "Token revoked.")
    return redirect("api:tokens")
