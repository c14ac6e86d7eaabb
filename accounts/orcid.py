"""A member's ORCID iD, from an ORCID sign-in or connection, kept on their profile.

The catalogue's authors carry no ORCID iD yet (papers.Author has an OpenReview id only), so the
profile's `author` is set by a curator in the admin; once authors carry iDs, this is where a
sign-in finds its author."""

from __future__ import annotations

from django.contrib.auth.models import User

from accounts.models import MemberProfile, Role
from accounts.roles import stored_role


def remember(user: User, orcid_id: str) -> MemberProfile:
    profile = MemberProfile.objects.filter(user=user).first()
    if profile is None:
        profile = MemberProfile(user=user, role=Role(stored_role(user)))
    if profile.orcid != orcid_id:
        # Another account that held this iD (connected before, since disconnected) lets go.
        MemberProfile.objects.filter(orcid=orcid_id).exclude(user=user).update(orcid=None)
        profile.orcid = orcid_id
        profile.save()
    return profile
