"""A paper's arXiv id and DOI: linked on its page, and in BibTeX read back by a real parser."""

from __future__ import annotations

import bibtexparser
import pytest
from django.urls import reverse

from annotations.exports import bibtex_for_items
from annotations.selectors import list_items_for_export
from tests.factories import make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db


def test_bibtex_has_doi_and_arxiv_eprint():
    paper = make_paper("Flows", abstract="We flow.")
    paper.arxiv_id, paper.doi = "hep-th/9901001", "10.1000/a_b%c"
    paper.save()
    plain = make_paper("Plain", abstract="Nothing more.")
    reading_list = make_reading_list(make_user(), papers=[paper, plain])

    library = bibtexparser.parse_string(bibtex_for_items(list_items_for_export(reading_list)))

    flows, other = library.entries
    assert flows.fields_dict["eprint"].value == "hep-th/9901001"
    assert flows.fields_dict["archivePrefix"].value == "arXiv"
    assert flows.fields_dict["doi"].value == "10.1000/a_b%c"  # verbatim, as a URL is
    assert {"doi", "eprint", "archivePrefix"}.isdisjoint(other.fields_dict)


def test_paper_page_links_to_arxiv_and_doi(client):
    paper = make_paper("Flows", abstract="We flow.")
    paper.arxiv_id, paper.doi = "2310.01234", "10.1000/abc"
    paper.save()
    response = client.get(paper.get_absolute_url())
    assert response.status_code == 200
    content = response.content.decode()
    assert 'href="https://arxiv.org/abs/2310.01234"' in content
    assert 'href="https://doi.org/10.1000/abc"' in content


def test_a_list_takes_a_paper_by_its_arxiv_id_or_doi(client):
    user = make_user()
    by_arxiv = make_paper("By arXiv", arxiv_id="2310.01234")
    by_doi = make_paper("By DOI", doi="10.1000/xyz")
    reading_list = make_reading_list(user, "Queue")
    client.force_login(user)
    url = reverse("annotations:list-item-add", args=[reading_list.pk])
    for typed in ("arXiv:2310.01234v3", "https://doi.org/10.1000/XYZ"):
        assert client.post(url, {"paper": typed}).status_code == 302
    assert [item.paper for item in reading_list.items.order_by("position")] == [by_arxiv, by_doi]


@pytest.mark.parametrize(
    ("forum_url", "arxiv_id", "button"),
    [
        ("https://openreview.net/forum?id=abc", "", "OpenReview forum</a>"),
        ("https://proceedings.mlr.press/v235/one24a.html", "", "Paper page</a>"),
        ("https://arxiv.org/abs/2310.01234v3", "", "arXiv page</a>"),
        ("https://arxiv.org/abs/2310.01234v3", "2310.01234", None),  # the arXiv button says it
    ],
)
def test_the_paper_link_says_where_it_goes(client, forum_url, arxiv_id, button):
    paper = make_paper("Flows", abstract="We flow.", forum_id="")
    paper.forum_url, paper.arxiv_id = forum_url, arxiv_id
    paper.save()
    content = client.get(paper.get_absolute_url()).content.decode()
    labels = ("OpenReview forum</a>", "Paper page</a>", "arXiv page</a>")
    assert [label for label in labels if label in content] == ([button] if button else [])
