"""Invitations: a curator names addresses and a role; each address gets a mail with a link
holding a random token (only its SHA-256 is stored). The link lets the invitee choose a
username and password and logs them in; it works once, until it expires.

Single sign-on (accounts.sso) admits a verified address with an open invitation the same way:
`open_invitation_for` finds it and `accept` marks it used.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import Invitation, Role
from accounts.roles import set_role

EXPIRED = "This invitation has expired. Ask the curator who invited you for a new one."
USED = "This invitation has already been used. Log in, or ask a curator for a new one."
UNKNOWN = "This invitation link is not valid. Check that you copied the whole link."


class InvitationRefused(Exception):
    """The link cannot be used; the message says why, for the person holding it."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Sent:
    invitation: Invitation
    link: str


def invite(*, emails: list[str], role: Role, invited_by: User) -> list[Sent]:
    """One invitation and one mail per address. An address's earlier open invitations stay
    usable until they expire; the newest is just another way in."""
    expires_at = timezone.now() + timedelta(days=settings.INVITATION_DAYS)
    sent = []
    for email in emails:
        token = secrets.token_urlsafe(32)
        invitation = Invitation.objects.create(
            email=email.casefold(),
            role=role,
            invited_by=invited_by,
            token_hash=token_hash(token),
            expires_at=expires_at,
        )
        link = settings.SITE_URL + reverse("accounts:accept", args=[token])
        _mail(invitation, link)
        sent.append(Sent(invitation, link))
    return sent


def _mail(invitation: Invitation, link: str) -> None:
    context = {
        "invitation": invitation,
        "link": link,
        "inviter": invitation.invited_by,
        "site_name": settings.SITE_NAME,
        "days": settings.INVITATION_DAYS,
    }
    send_mail(
        subject=f"You are invited to {settings.SITE_NAME}",
        message=render_to_string("accounts/invitation_email.txt", context),
        from_email=None,
        recipient_list=[invitation.email],
    )


def usable_invitation(token: str) -> Invitation:
    """The invitation the link's token names, if it can still be used; else InvitationRefused
    with the reason."""
    invitation = Invitation.objects.filter(token_hash=token_hash(token)).first()
    if invitation is None:
        raise InvitationRefused(UNKNOWN)
    return _check(invitation)


def _check(invitation: Invitation) -> Invitation:
    if invitation.used_at is not None:
        raise InvitationRefused(USED)
    if invitation.expires_at <= timezone.now():
        raise InvitationRefused(EXPIRED)
    return invitation


def open_invitation_for(email: str) -> Invitation | None:
    """The newest unused, unexpired invitation of `email`, for single sign-on."""
    return (
        Invitation.objects.filter(
            email=email.casefold(), used_at__isnull=True, expires_at__gt=timezone.now()
        )
        .order_by("-created_at", "-pk")
        .first()
    )


@transaction.atomic
def accept(invitation: Invitation, *, user: User) -> None:
    """Mark the invitation used by `user` and give them its role. Conditional on the
    invitation being still unused, so two tabs (or two servers) cannot both use it: the
    second raises InvitationRefused and its transaction, the account it made, is undone."""
    claimed = Invitation.objects.filter(pk=invitation.pk, used_at__isnull=True).update(
        used_at=timezone.now(), user=user
    )
    if not claimed:
        raise InvitationRefused(USED)
    set_role(user, Role(invitation.role))
