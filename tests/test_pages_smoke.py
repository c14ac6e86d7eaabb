from django.urls import reverse

from papers.models import TagKind
from tests.factories import make_paper


def test_list_shows_paper_with_authors_and_tags(client, db):
    make_paper("Attention Is Enough", authors=["Ada Lovelace"], tags=[("Poster", TagKind.TRACK)])
    response = client.get(reverse("papers:list"))
    assert response.status_code == 200
    assert b"Attention Is Enough" in response.content
    assert b"Ada Lovelace" in response.content
    assert b"Poster" in response.content


def test_untitled_paper_shows_placeholder(client, db):
    paper = make_paper("", needs_curation=True)
    response = client.get(paper.get_absolute_url())
    assert b"awaiting curation" in response.content
