"""ORCID → author (issue 41, point 4): papers.Author carries an ORCID iD (unique when set), an
ORCID connection links the member's profile to the author with that iD, and "my papers" (the
"mine" facet's "authored") and recommendations then know the member's own papers. The
connection itself, through the ORCID stand-in: tests/test_accounts_sso.py."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from accounts import orcid
from accounts.models import MemberProfile
from papers.models import Author, Paper
from papers.search.sync import current_searcher
from recommendations import training
from tests.factories import make_paper, make_user

pytestmark = pytest.mark.django_db

ADA_ORCID = "0000-0002-1825-0097"  # what the tests' ORCID stand-in vouches for


@pytest.fixture
def ada_author():
    author = Author.objects.create(name="Ada Lovelace", orcid=ADA_ORCID)
    return author


def _listed(client, query: str) -> list[str]:
    current_searcher()  # the list page's index, as a running server has it
    response = client.get(reverse("papers:list") + query)
    assert response.status_code == 200
    return sorted(paper.title for paper in response.context["papers"])


def test_my_papers_are_the_linked_authors_and_only_theirs(client, ada_author):
    make_paper("Notes on the analytical engine", authors=[ada_author])
    make_paper("Someone else's paper", authors=["Charles Babbage"])
    member = make_user("ada")
    client.force_login(member)
    assert _listed(client, "?mine=authored") == []  # no author known yet

    orcid.remember(member, ADA_ORCID)

    assert _listed(client, "?mine=authored") == ["Notes on the analytical engine"]
    assert Paper.objects.authored_by(make_user("other")).count() == 0


def test_an_id_no_author_carries_links_nothing_and_keeps_a_curators_choice():
    member = make_user("ada")
    chosen = Author.objects.create(name="A. Lovelace")
    MemberProfile.objects.create(user=member, author=chosen)

    profile = orcid.remember(member, ADA_ORCID)

    assert (profile.orcid, profile.author) == (ADA_ORCID, chosen)


def test_recommendations_count_the_members_own_papers(ada_author):
    written = make_paper("Notes on the analytical engine", authors=[ada_author])
    member = make_user("ada")
    assert written.pk not in training.member_signals(member).positives

    orcid.remember(member, ADA_ORCID)

    assert written.pk in training.member_signals(member).positives


def test_an_orcid_id_belongs_to_one_author_and_many_have_none(ada_author):
    Author.objects.create(name="No iD one")
    Author.objects.create(name="No iD two")
    with pytest.raises(IntegrityError), transaction.atomic():
        Author.objects.create(name="Ada King", orcid=ADA_ORCID)
