"""THE check of what role a person has on the site: curator, member or guest.

Before roles every account was a member, and staff with the catalogue permissions were the
curators (docs/features.md, "Curator accounts"); an account without a MemberProfile keeps
exactly that. A guest is a logged-in account that must see no more than a visitor plus the
comment threads: `is_member` is what the pages that show the lab's shared things (highlights,
members-only reviews) ask, and accounts.middleware keeps guests to the routes in GUEST_ROUTES.

The role is read from the database once, when the person logs in, and kept in their session
(ROLE_SESSION_KEY): asking it costs no query on any page. A change of role through `set_role`
ends the account's sessions, so a member made a guest is a guest from their next request.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, Group, Permission, User
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone

from accounts.models import MemberProfile, Role

ROLE_SESSION_KEY = "site_role"
CURATORS_GROUP = "Curators"
# The permissions docs/features.md lists for a curator, plus inviting people.
CURATOR_PERMISSIONS = {
    "papers": {
        "paper": "view change delete",
        "author": "view change add delete",
        "tag": "view change add delete",
        "importrun": "view",
        "importconflict": "view",
        "review": "view",
        "feed": "view change add delete",
    },
    "annotations": {"comment": "view change delete"},
    "pdfs": {
        "paperpdf": "view",
        "setasidepdf": "view delete",
        "pdffetchfailure": "view",
        "pdfrun": "view add change",
    },
    "highlights": {"highlight": "view delete"},
    "accounts": {"invitation": "view add"},
}


def stored_role(user: User) -> Role:
    """The role the database gives `user` (one query)."""
    profile = MemberProfile.objects.filter(user=user).only("role").first()
    if profile is not None:
        return Role(profile.role)
    return Role.CURATOR if user.is_staff else Role.MEMBER


def role_of(user: User | AnonymousUser | None) -> Role | None:
    """None for a visitor. In a request, the role the session keeps (no query); elsewhere (a
    mail run, a shell) the database's, remembered on the user object."""
    if user is None or not user.is_authenticated:
        return None
    role = getattr(user, "_site_role", None)
    if role is None:
        role = stored_role(user)
        user._site_role = role  # type: ignore[attr-defined]
    return Role(role)


def is_guest(user: User | AnonymousUser | None) -> bool:
    return role_of(user) == Role.GUEST


def is_member(user: User | AnonymousUser | None) -> bool:
    """A logged-in member or curator: someone who may see what the lab shares."""
    role = role_of(user)
    return role is not None and role != Role.GUEST


def remember_role(session, user: User) -> Role:
    """At login: read the role once and keep it in the session."""
    role = stored_role(user)
    session[ROLE_SESSION_KEY] = role.value
    user._site_role = role  # type: ignore[attr-defined]
    return role


def curators_group() -> Group:
    group, _ = Group.objects.get_or_create(name=CURATORS_GROUP)
    wanted = Permission.objects.none()
    for app_label, models in CURATOR_PERMISSIONS.items():
        for model, actions in models.items():
            codenames = [f"{action}_{model}" for action in actions.split()]
            wanted |= Permission.objects.filter(
                content_type__app_label=app_label, codename__in=codenames
            )
    group.permissions.add(*wanted)
    return group


@transaction.atomic
def set_role(user: User, role: Role) -> None:
    """Give `user` the role: a curator is staff in the Curators group, the others neither (a
    superuser keeps being one whatever the role says). Ends the account's sessions when the
    role changes, since a session keeps the role it logged in with."""
    previous = stored_role(user)
    MemberProfile.objects.update_or_create(user=user, defaults={"role": role})
    user.is_staff = role == Role.CURATOR or user.is_superuser
    user.save(update_fields=["is_staff"])
    if role == Role.CURATOR:
        user.groups.add(curators_group())
    else:
        user.groups.remove(*Group.objects.filter(name=CURATORS_GROUP))
    user._site_role = role  # type: ignore[attr-defined]
    if previous != role:
        end_sessions(user)


def end_sessions(user: User) -> int:
    """Delete every unexpired session of `user`. Sessions are not indexed by account, so each
    is decoded: a lab's few hundred, and only when a curator changes someone's role."""
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if session.get_decoded().get("_auth_user_id") == str(user.pk):
            session.delete()
            ended += 1
    return ended
