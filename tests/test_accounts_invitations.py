"""Invitations (accounts/invitations.py): a curator invites by e-mail, the link lets the
invitee choose a password and logs them in, once, before it expires; and the roles it gives,
a guest's kept away from the lab's pages (with members beside them as positive controls)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from accounts.invitations import EXPIRED, UNKNOWN, USED, invite
from accounts.models import Invitation, Role
from accounts.roles import curators_group, is_member, set_role, stored_role
from annotations.models import Comment, Visibility
from highlights.models import Highlight
from tests.factories import PASSWORD, make_comment, make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-long-and-unusual-passphrase"


@pytest.fixture
def curator():
    user = make_user("curator", is_staff=True)
    user.groups.add(curators_group())
    return user


def link_in(message) -> str:
    return re.search(r"http://\S+/accounts/invitation/\S+/", message.body).group(0)


def path_of(link: str) -> str:
    return link.split("127.0.0.1:8000", 1)[1]


def invite_one(curator, email="newcomer@example.org", role=Role.MEMBER) -> str:
    invite(emails=[email], role=role, invited_by=curator)
    return path_of(link_in(mail.outbox[-1]))


def log_in(client, username: str, password: str) -> None:
    """Through the login page, as a person does (django-axes wants the request)."""
    response = client.post(reverse("login"), {"username": username, "password": password})
    assert response.status_code == 302


def join(client, path, username="newcomer", password=NEW_PASSWORD):
    return client.post(path, {"username": username, "password1": password, "password2": password})


def test_a_curator_invites_several_addresses_at_once(client, curator):
    client.force_login(curator)
    response = client.post(
        reverse("accounts:invite"),
        {"emails": "ada@example.org, Grace@Example.org\nada@example.org", "role": "member"},
    )
    assert response.status_code == 302
    assert sorted(Invitation.objects.values_list("email", flat=True)) == [
        "ada@example.org",
        "grace@example.org",
    ]
    assert sorted(m.to[0] for m in mail.outbox) == ["ada@example.org", "grace@example.org"]
    invitation = Invitation.objects.get(email="ada@example.org")
    assert invitation.invited_by == curator
    assert invitation.role == Role.MEMBER
    assert invitation.used_at is None
    assert invitation.expires_at > timezone.now() + timedelta(days=13)
    # The mail's token is not stored: only its hash.
    token = link_in(mail.outbox[0]).rstrip("/").rsplit("/", 1)[1]
    assert not Invitation.objects.filter(token_hash=token).exists()
    page = client.get(reverse("accounts:invite")).content.decode()
    assert "grace@example.org" in page


def test_bad_addresses_are_a_form_error_and_nothing_is_sent(client, curator):
    client.force_login(curator)
    response = client.post(
        reverse("accounts:invite"), {"emails": "ada@example.org not-an-address", "role": "member"}
    )
    assert response.status_code == 200
    assert "not-an-address" in response.content.decode()
    assert not Invitation.objects.exists() and not mail.outbox


def test_only_a_curator_invites(client, curator):
    assert client.get(reverse("accounts:invite"))["Location"].startswith(reverse("login"))
    client.force_login(make_user("member"))
    assert client.post(reverse("accounts:invite"), {"emails": "x@example.org"}).status_code == 403
    assert not Invitation.objects.exists()


def test_the_link_sets_a_password_and_logs_in(client, curator):
    path = invite_one(curator)
    page = client.get(path)
    assert page.status_code == 200
    assert "newcomer@example.org" in page.content.decode()
    assert not User.objects.filter(username="newcomer").exists()  # the GET made nothing

    response = join(client, path)
    assert response.status_code == 302
    user = User.objects.get(username="newcomer")
    assert user.email == "newcomer@example.org"
    assert user.check_password(NEW_PASSWORD)
    assert client.get(reverse("papers:list")).wsgi_request.user == user
    assert stored_role(user) == Role.MEMBER
    invitation = Invitation.objects.get()
    assert invitation.used_at is not None and invitation.user == user
    # The password works on the ordinary login page too.
    client.post(reverse("logout"))
    log_in(client, "newcomer", NEW_PASSWORD)
    assert client.get(reverse("papers:list")).wsgi_request.user == user


def test_a_used_link_is_refused_with_a_clear_message(client, curator):
    path = invite_one(curator)
    join(client, path)
    client.post(reverse("logout"))
    for response in (client.get(path), join(client, path, username="another")):
        assert response.status_code == 410
        assert USED in response.content.decode()
    assert not User.objects.filter(username="another").exists()


def test_an_expired_link_is_refused_with_a_clear_message(client, curator):
    path = invite_one(curator)
    Invitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    for response in (client.get(path), join(client, path)):
        assert response.status_code == 410
        assert EXPIRED in response.content.decode()
    assert not User.objects.filter(username="newcomer").exists()


def test_a_made_up_link_is_refused(client, curator):
    invite_one(curator)
    response = client.get(reverse("accounts:accept", args=["made-up-token"]))
    assert response.status_code == 410
    assert UNKNOWN in response.content.decode()


def test_the_password_validators_apply_and_the_link_stays_usable(client, curator):
    path = invite_one(curator)
    response = join(client, path, password="newcomer")  # common, and like the username
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert Invitation.objects.get().used_at is None
    assert join(client, path).status_code == 302


def test_a_taken_username_is_a_form_error(client, curator):
    make_user("newcomer")
    path = invite_one(curator)
    assert join(client, path).status_code == 200
    assert Invitation.objects.get().used_at is None


def test_a_curator_invitation_makes_a_curator_who_can_invite(client, curator):
    path = invite_one(curator, role=Role.CURATOR)
    join(client, path)
    user = User.objects.get(username="newcomer")
    assert user.is_staff and not user.is_superuser
    assert user.has_perm("accounts.add_invitation") and user.has_perm("papers.change_paper")
    assert client.get(reverse("accounts:invite")).status_code == 200


# Guests: the catalogue and the comment threads, nothing of the lab's.


@pytest.fixture
def lab():
    owner = make_user("owner")
    paper = make_paper("A paper the lab reads")
    shared = make_reading_list(owner, "Thursday's lab list", papers=[paper])
    shared.visibility = Visibility.SHARED
    shared.save()
    make_comment(owner, paper, body="A comment of the lab")
    return {"owner": owner, "paper": paper, "shared": shared}


@pytest.fixture
def guest(curator, client):
    path = invite_one(curator, email="guest@example.org", role=Role.GUEST)
    join(client, path, username="guest")
    return User.objects.get(username="guest")


LAB_PAGES = [
    lambda lab: reverse("alerts:lab"),
    lambda lab: reverse("annotations:activity"),
    lambda lab: reverse("annotations:lists-shared"),
    lambda lab: reverse("annotations:list-detail", args=[lab["shared"].pk]),
    lambda lab: reverse("annotations:lists"),
    lambda lab: reverse("recommendations:recommended"),
]


@pytest.mark.parametrize("page", LAB_PAGES)
def test_a_guest_is_refused_the_lab_pages_a_member_sees(client, lab, guest, page):
    client.force_login(lab["owner"])
    assert client.get(page(lab)).status_code == 200  # the positive control
    client.force_login(guest)
    response = client.get(page(lab))
    assert response.status_code == 403
    assert "Thursday" not in response.content.decode()
    assert "Not open to guests" in response.content.decode()


def test_a_guest_reads_papers_and_comments_on_them(client, lab, guest):
    client.force_login(guest)
    paper = lab["paper"]
    page = client.get(reverse("papers:detail", args=[paper.pk])).content.decode()
    assert "A paper the lab reads" in page
    assert "A comment of the lab" in page
    assert "Thursday" not in page  # the lab's list, on its page, is not named
    response = client.post(
        reverse("annotations:comment-add", args=[paper.pk]), {"body": "A guest's thought"}
    )
    assert response.status_code == 302
    assert Comment.objects.filter(author=guest, body="A guest's thought").exists()
    # Not the member's actions: a note, a list.
    assert (
        client.post(reverse("annotations:note-add", args=[paper.pk]), {"body": "x"}).status_code
        == 403
    )


def test_a_guest_sees_no_lab_highlights_a_member_sees(lab, guest):
    highlight = Highlight.objects.create(
        paper=lab["paper"], author=lab["owner"], visibility="lab", exact="q", page=1, start=0, end=1
    )
    assert highlight in Highlight.objects.visible_to(lab["owner"])
    assert highlight not in Highlight.objects.visible_to(guest)
    assert is_member(lab["owner"]) and not is_member(guest)


def test_making_a_member_a_guest_ends_their_sessions(client, lab):
    member = lab["owner"]
    log_in(client, member.username, PASSWORD)
    assert client.get(reverse("alerts:lab")).status_code == 200
    set_role(member, Role.GUEST)
    response = client.get(reverse("alerts:lab"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    log_in(client, member.username, PASSWORD)
    assert client.get(reverse("alerts:lab")).status_code == 403
