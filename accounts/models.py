"""Who a member is to the site (their role) and the invitations that let people join."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Role(models.TextChoices):
    # A curator is staff with the "Curators" group's permissions; a member is what every
    # account was before roles (and an account without a profile still is); a guest reads what
    # a visitor reads and comments on papers, and sees no lab activity, lists or highlights.
    CURATOR = "curator", "Curator"
    MEMBER = "member", "Member"
    GUEST = "guest", "Guest"


class MemberProfile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="member_profile"
    )
    role = models.CharField(max_length=10, choices=Role, default=Role.MEMBER)
    # The member's ORCID iD ("0000-0002-1825-0097"), from an ORCID sign-in; null when unknown
    # so that only the iDs given are unique.
    orcid = models.CharField("ORCID iD", max_length=19, null=True, blank=True, unique=True)
    # The catalogue's author the member is, when a curator or an ORCID sign-in said so.
    author = models.ForeignKey(
        "papers.Author", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self) -> str:
        return f"{self.user} ({self.get_role_display()})"


class Invitation(models.Model):
    email = models.EmailField()
    role = models.CharField(max_length=10, choices=Role, default=Role.MEMBER)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    # SHA-256 of the link's random token: the database alone cannot make a working link.
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    # The account the invitation made (or, through single sign-on, admitted).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            # Single sign-on looks up an address's open invitation.
            models.Index(fields=["email", "used_at"], name="accounts_invitation_open"),
        ]

    def __str__(self) -> str:
        return f"{self.email} as {self.get_role_display()}"
