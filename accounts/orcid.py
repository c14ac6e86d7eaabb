"""A member's ORCID iD, from an ORCID sign-in or connection, kept on their profile, and the
catalogue's author with that iD (papers.Author.orcid, from Crossref's records) linked to it:
"my papers" (the "mine" facet) and recommendations then know the member's own papers."""

from __future__ import annotations

from django.contrib.auth.models import User

from accounts.models import MemberProfile, Role
from accounts.roles import stored_role

# papers.Author, through the profile's field: accounts names the catalogue's models by string
# and imports none of its modules (docs/architecture.md; papers imports accounts.roles).
Author = MemberProfile._meta.get_field("author").related_model


def remember(user: User, orcid_id: str) -> MemberProfile:
    profile = MemberProfile.objects.filter(user=user).first()
    if profile is None:
        profile = MemberProfile(user=user, role=Role(stored_role(user)))
    changed = []
    if profile.orcid != orcid_id:
        # Another account that held this iD (connected before, since disconnected) lets go.
        MemberProfile.objects.filter(orcid=orcid_id).exclude(user=user).update(orcid=None)
        profile.orcid = orcid_id
        changed.append("orcid")
    # The iD is ORCID's word: its author is the member's, over one a curator chose by name.
    author_id = Author._default_manager.filter(orcid=orcid_id).values_list("pk", flat=True).first()
    if author_id is not None and profile.author_id != author_id:
        profile.author_id = author_id
        changed.append("author")
    if changed or profile.pk is None:
        profile.save()
    return profile
