"""Single sign-on (accounts/sso.py) against the tests' own OpenID Connect provider and ORCID
stand-in (tests/oidc_provider.py): who joins, with which role, and that they come back as the
same member. The password login beside it is tests/test_accounts.py's and
tests/test_security_login_lockout.py's."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from allauth.socialaccount.models import SocialAccount
from allauth.socialaccount.providers.orcid.views import OrcidOAuth2Adapter
from django.contrib.auth.models import User
from django.urls import reverse

from accounts.invitations import invite
from accounts.models import Invitation, MemberProfile, Role
from accounts.roles import stored_role
from accounts.sso import NOT_INVITED, NOT_VERIFIED, ORCID_NO_ACCOUNT
from papers.models import Author
from tests.factories import make_user
from tests.oidc_provider import CLIENT_ID, CLIENT_SECRET, ProviderServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider():
    with ProviderServer() as server:
        yield server


@pytest.fixture
def sso(settings, provider, monkeypatch):
    settings.OIDC_ISSUER = provider.issuer
    settings.OIDC_CLIENT_ID = CLIENT_ID
    settings.OIDC_CLIENT_SECRET = CLIENT_SECRET
    settings.OIDC_PROVIDER_NAME = "Lab University"
    settings.OIDC_ALLOWED_DOMAIN = "lab.example.org"
    settings.ORCID_CLIENT_ID = "orcid-client"
    settings.SOCIALACCOUNT_PROVIDERS = {
        "openid_connect": {
            "APPS": [
                {
                    "provider_id": "lab",
                    "name": "Lab University",
                    "client_id": CLIENT_ID,
                    "secret": CLIENT_SECRET,
                    "settings": {"server_url": provider.issuer},
                }
            ]
        },
        "orcid": {"APPS": [{"client_id": "orcid-client", "secret": "orcid-secret"}]},
    }
    # allauth's ORCID adapter fixes its https URLs when imported: the stand-in's instead.
    monkeypatch.setattr(OrcidOAuth2Adapter, "authorize_url", f"{provider.issuer}/oauth/authorize")
    monkeypatch.setattr(OrcidOAuth2Adapter, "access_token_url", f"{provider.issuer}/oauth/token")
    monkeypatch.setattr(OrcidOAuth2Adapter, "profile_url", f"{provider.issuer}/v3.0/%s/record")
    return provider


def follow_provider(client, start: str, callback: str, provider, **form):
    """POST the login page's button, check it sends us to the provider, and come back as the
    provider would after the person said yes."""
    response = client.post(start, form)
    assert response.status_code == 302, response.content[:500]
    location = urlsplit(response["Location"])
    assert f"{location.scheme}://{location.netloc}" == provider.issuer
    state = parse_qs(location.query)["state"][0]
    return client.get(callback, {"code": "the-code", "state": state})


def oidc_sign_in(client, provider):
    return follow_provider(
        client,
        reverse("openid_connect_login", args=["lab"]),
        reverse("openid_connect_callback", args=["lab"]),
        provider,
    )


def logged_in_as(client) -> User | None:
    user = client.get(reverse("papers:list")).wsgi_request.user
    return user if user.is_authenticated else None


def test_the_login_page_offers_the_provider_only_when_configured(client, settings, sso):
    assert "Sign in with Lab University" in client.get(reverse("login")).content.decode()
    settings.OIDC_ISSUER = ""
    settings.ORCID_CLIENT_ID = ""
    page = client.get(reverse("login")).content.decode()
    assert "Sign in with" not in page
    assert 'name="password"' in page  # password accounts stay


def test_a_verified_address_at_the_lab_domain_joins_as_a_member(client, sso):
    response = oidc_sign_in(client, sso)
    assert response.status_code == 302
    user = logged_in_as(client)
    assert user is not None
    assert user.email == "ada@lab.example.org"
    assert stored_role(user) == Role.MEMBER
    assert not user.is_staff
    assert not user.has_usable_password()
    # The site's pages know the member: the lab page is theirs.
    assert client.get(reverse("alerts:lab")).status_code == 200
    # The token request carried the client's credentials to the stand-in.
    assert sso.token_requests[-1]["client_id"] == CLIENT_ID


def test_a_second_sign_in_finds_the_same_member(client, sso):
    oidc_sign_in(client, sso)
    first = logged_in_as(client)
    client.post(reverse("logout"))
    assert logged_in_as(client) is None
    sso.person["email"] = "ada.lovelace@lab.example.org"  # the provider's record changed
    oidc_sign_in(client, sso)
    assert logged_in_as(client) == first
    assert User.objects.count() == 1
    assert SocialAccount.objects.get().uid == "subject-1"


def test_an_address_elsewhere_needs_an_invitation(client, sso):
    sso.person.update(sub="subject-2", email="grace@elsewhere.example.com")
    response = oidc_sign_in(client, sso)
    assert response.status_code == 403
    assert NOT_INVITED in response.content.decode()
    assert logged_in_as(client) is None
    assert not User.objects.exists()


def test_an_invitation_admits_an_address_elsewhere_with_its_role(client, sso):
    curator = make_user("curator", is_staff=True)
    invite(emails=["Grace@Elsewhere.example.com"], role=Role.GUEST, invited_by=curator)
    sso.person.update(sub="subject-2", email="grace@elsewhere.example.com")
    assert oidc_sign_in(client, sso).status_code == 302
    user = logged_in_as(client)
    assert user is not None and stored_role(user) == Role.GUEST
    invitation = Invitation.objects.get()
    assert invitation.used_at is not None and invitation.user == user
    # A guest: the lab page is refused.
    assert client.get(reverse("alerts:lab")).status_code == 403


def test_an_unverified_address_is_refused_even_at_the_lab_domain(client, sso):
    sso.person["email_verified"] = False
    response = oidc_sign_in(client, sso)
    assert response.status_code == 403
    assert NOT_VERIFIED in response.content.decode()
    assert not User.objects.exists()


def test_without_the_domain_rule_the_lab_domain_needs_an_invitation_too(client, settings, sso):
    settings.OIDC_ALLOWED_DOMAIN = ""
    assert oidc_sign_in(client, sso).status_code == 403
    assert not User.objects.exists()


def test_the_sign_in_starts_only_from_a_post(client, sso):
    # A GET (a link on another site) does not send the browser to the provider.
    response = client.get(reverse("openid_connect_login", args=["lab"]))
    assert response.status_code != 302 or not response["Location"].startswith(sso.issuer)


def test_a_provider_not_configured_is_a_404(client, settings, sso):
    settings.SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": []}, "orcid": {"APPS": []}}
    assert client.post(reverse("openid_connect_login", args=["lab"])).status_code == 404


def orcid_flow(client, provider, **form):
    return follow_provider(
        client, reverse("orcid_login"), reverse("orcid_callback"), provider, **form
    )


def test_a_member_connects_their_orcid_and_then_signs_in_with_it(client, sso):
    member = make_user("ada")
    client.force_login(member)
    assert orcid_flow(client, sso, process="connect").status_code == 302
    assert MemberProfile.objects.get(user=member).orcid == "0000-0002-1825-0097"
    client.post(reverse("logout"))

    assert orcid_flow(client, sso).status_code == 302
    assert logged_in_as(client) == member
    assert stored_role(member) == Role.MEMBER  # connecting changed no role


def test_connecting_orcid_links_the_author_with_that_id(client, sso):
    """papers.Author.orcid (from Crossref) finds the member's author: tests/test_orcid_author."""
    ada = Author.objects.create(name="Ada Lovelace", orcid="0000-0002-1825-0097")
    member = make_user("ada")
    client.force_login(member)
    assert orcid_flow(client, sso, process="connect").status_code == 302

    profile = MemberProfile.objects.get(user=member)
    assert (profile.orcid, profile.author) == ("0000-0002-1825-0097", ada)


def test_orcid_alone_admits_nobody(client, sso):
    response = orcid_flow(client, sso)
    assert response.status_code == 403
    assert ORCID_NO_ACCOUNT in response.content.decode()
    assert not User.objects.exists()
