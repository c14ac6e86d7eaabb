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
from papers.importing.orcids import orcid_of
from papers.importing.pipeline import import_records
from papers.models import Author, Paper
from papers.search.sync import current_searcher
from papers.sources.crossref import work_record
from recommendations import training
from tests.factories import make_paper, make_user
from tests.link_lookup_helpers import DOI, crossref_work

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


# Crossref's authors carry their ORCID iD; the import gives it to the catalogue's author.


def test_a_crossref_record_keeps_each_authors_orcid_beside_the_name():
    record = work_record(crossref_work()["message"], "crossref", 1)
    assert record.authors == ["Takuya Akiba", "Shotaro Sano", "The Optuna Consortium"]
    assert record.author_orcids == [ADA_ORCID, "", ""]


@pytest.mark.parametrize(
    ("value", "orcid"),
    [
        ("http://orcid.org/0000-0002-1825-0097", ADA_ORCID),
        ("https://orcid.org/0000-0001-5109-370x", "0000-0001-5109-370X"),
        ("0000-0002-1825-0097", ADA_ORCID),
        ("https://orcid.org/not-an-id", ""),
        (None, ""),
    ],
)
def test_an_orcid_is_read_bare_or_not_at_all(value, orcid):
    assert orcid_of(value) == orcid


def _import_crossref():
    record = work_record(crossref_work()["message"], "crossref", 1)
    import_records([record], source="crossref")
    return Paper.objects.get(doi=DOI.lower())


def test_the_import_gives_the_author_the_orcid_and_the_member_their_papers():
    paper = _import_crossref()
    akiba = paper.authors.get(name="Takuya Akiba")
    assert akiba.orcid == ADA_ORCID
    assert paper.authors.exclude(pk=akiba.pk).filter(orcid__isnull=False).count() == 0
    member = make_user("akiba")

    orcid.remember(member, ADA_ORCID)

    assert list(Paper.objects.authored_by(member)) == [paper]


def test_a_member_who_connected_first_is_linked_when_the_import_brings_the_id():
    member = make_user("akiba")
    orcid.remember(member, ADA_ORCID)
    assert MemberProfile.objects.get(user=member).author is None

    paper = _import_crossref()

    assert MemberProfile.objects.get(user=member).author == paper.authors.get(orcid=ADA_ORCID)


def test_an_orcid_another_author_holds_is_left_to_a_curator():
    holder = Author.objects.create(name="Someone Else", orcid=ADA_ORCID)
    paper = _import_crossref()
    assert paper.authors.get(name="Takuya Akiba").orcid is None
    holder.refresh_from_db()
    assert holder.orcid == ADA_ORCID
