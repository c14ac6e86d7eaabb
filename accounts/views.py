"""A curator's invitation page and the invitee's page behind the mailed link."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import (
    login_not_required,
    login_required,
    permission_required,
)
from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from accounts.forms import AcceptInvitationForm, InviteForm
from accounts.invitations import InvitationRefused, accept, invite, usable_invitation
from accounts.models import Invitation, Role

RECENT_INVITATIONS = 50


@require_http_methods(["GET", "POST"])
@login_required
@permission_required("accounts.add_invitation", raise_exception=True)
def invite_page(request: HttpRequest) -> HttpResponse:
    form = InviteForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        sent = invite(
            emails=form.cleaned_data["emails"],
            role=Role(form.cleaned_data["role"]),
            invited_by=request.user,  # type: ignore[arg-type]
        )
        messages.success(
            request,
            f"Invited {len(sent)} {'address' if len(sent) == 1 else 'addresses'}; "
            f"each link works once within {settings.INVITATION_DAYS} days.",
        )
        return redirect("accounts:invite")
    recent = Invitation.objects.select_related("invited_by", "user")[:RECENT_INVITATIONS]
    context = {
        "form": form,
        "invitations": recent,
        "now": timezone.now(),
        "INVITATION_DAYS": settings.INVITATION_DAYS,
        "SSO_ENABLED": bool(settings.OIDC_ISSUER),
    }
    return render(request, "accounts/invite.html", context)


@login_not_required
@require_http_methods(["GET", "POST"])
def accept_page(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows the form and changes nothing; POST makes the account and logs in."""
    try:
        invitation = usable_invitation(token)
    except InvitationRefused as refused:
        return render(request, "accounts/invitation_refused.html", {"reason": refused}, status=410)
    form = AcceptInvitationForm(
        request.POST if request.method == "POST" else None,
        instance=User(email=invitation.email),
    )
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
                accept(invitation, user=user)
        except InvitationRefused as refused:
            return render(
                request, "accounts/invitation_refused.html", {"reason": refused}, status=410
            )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}: your account is ready.")
        return redirect(settings.LOGIN_REDIRECT_URL)
    return render(request, "accounts/accept.html", {"form": form, "invitation": invitation})
