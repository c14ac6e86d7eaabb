"""The paper page's "Cite" section: the BibTeX entry every export writes for the paper, and
formatted references (APA, IEEE) by citeproc-py, each with a Copy button."""

from __future__ import annotations

import bibtexparser
import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from annotations.templatetags.citation_tags import STYLES, citation_context, formatted_reference
from papers.models import Paper, TagKind
from tests.factories import make_paper

pytestmark = pytest.mark.django_db

ICLR_2024 = "International Conference on Learning Representations (ICLR 2024)"


@pytest.fixture
def paper():
    return make_paper(
        "Attention & Über-Flows",
        authors=["Ada King Lovelace", "Alan Turing"],
        tags=[("ICLR 2024", TagKind.VENUE)],
        forum_url="https://openreview.net/forum?id=abc",
    )


def cite(client, paper, **headers):
    response = client.get(reverse("annotations:paper-cite", args=[paper.pk]), **headers)
    assert response.status_code == 200
    return response


def test_the_paper_page_loads_its_cite_section_when_it_comes_into_view(client, paper):
    content = client.get(paper.get_absolute_url()).content.decode()
    cite_url = reverse("annotations:paper-cite", args=[paper.pk])
    assert f'hx-get="{cite_url}" hx-trigger="revealed"' in content
    assert f'<a href="{cite_url}">' in content  # without JavaScript, a link
    assert "js/cite.js" in content
    # htmx gets the section alone; a plain request gets it as a page.
    fragment = cite(client, paper, HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith("<section") and "<html" not in fragment
    assert "<html" in cite(client, paper).content.decode()


def test_the_cite_section_has_copy_buttons(client, paper):
    content = cite(client, paper, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="cite-heading"' in content
    for slug, label in [*STYLES, ("bibtex", "BibTeX")]:
        assert f">{label}</h3>" in content
        assert f'id="cite-{slug}"' in content
        assert f'data-copy-target="cite-{slug}"' in content  # its Copy button
    assert " onclick=" not in content  # the strict CSP forbids inline handlers


def test_apa_reference_has_authors_year_title_and_full_venue(client, paper):
    response = cite(client, paper)
    apa = dict((slug, text) for slug, _, text in response.context["references"])["apa"]
    assert apa.startswith("Lovelace, A. K., & Turing, A. (2024). Attention & Über-Flows.")
    assert ICLR_2024 in apa and "https://openreview.net/forum?id=abc" in apa
    # Plain text, escaped once by the template.
    assert "Attention &amp; Über-Flows" in response.content.decode()


def test_ieee_reference_has_no_number_label(client, paper):
    response = cite(client, paper)
    ieee = dict((slug, text) for slug, _, text in response.context["references"])["ieee"]
    assert ieee.startswith("A. K. Lovelace and A. Turing, “Attention & Über-Flows”")
    assert f"in {ICLR_2024}, 2024" in ieee


def test_bibtex_on_the_page_is_the_exports_entry(client, paper):
    response = cite(client, paper)
    [entry] = bibtexparser.parse_string(response.context["bibtex"]).entries
    assert entry.key == f"lovelace2024attention-{paper.pk}"  # as in every export
    assert entry.fields_dict["booktitle"].value == "{" + ICLR_2024 + "}"  # its case kept
    assert entry.fields_dict["author"].value == "Lovelace, Ada King and Turing, Alan"


def test_a_paper_without_authors_or_venue_is_cited_without_inventing_them(client):
    paper = make_paper("Lonely paper")
    response = cite(client, paper)
    [entry] = bibtexparser.parse_string(response.context["bibtex"]).entries
    assert "author" not in entry.fields_dict and "booktitle" not in entry.fields_dict
    for _, _, text in response.context["references"]:
        assert "Lonely paper" in text and "Anonymous" not in text


def test_a_paper_without_authors_has_its_title_once_in_apa(client):
    # citeproc-py moves the title into the author's place and used to print it again.
    paper = make_paper(
        "Denoising Diffusion Bridge Models",
        tags=[("ICLR 2024", TagKind.VENUE)],
        forum_url="https://openreview.net/forum?id=abc",
    )
    references = {slug: text for slug, _, text in cite(client, paper).context["references"]}
    assert references["apa"] == (
        f"Denoising Diffusion Bridge Models. (2024). {ICLR_2024}. "
        "https://openreview.net/forum?id=abc"
    )
    assert references["ieee"].count("Denoising Diffusion Bridge Models") == 1
    # No venue either (its year is the import's): the title, the year, nothing repeated.
    [(_, _, apa), *_] = cite(client, make_paper("Why? A study")).context["references"]
    assert apa.startswith("Why? A study. (") and apa.count("Why? A study") == 1


def test_an_author_named_like_the_title_keeps_both_in_apa():
    record = {
        "id": "x",
        "type": "paper-conference",
        "title": "Models",
        "author": [{"family": "Models"}],
        "issued": {"date-parts": [[2024]]},
    }
    assert formatted_reference(record, "apa") == "Models. (2024). Models."


def test_the_section_reads_the_paper_and_nothing_else(client, paper, django_assert_num_queries):
    # The paper, its authorships with authors, its tags.
    with django_assert_num_queries(3):
        html = cite(client, paper, HTTP_HX_REQUEST="true").content.decode()
    assert "Lovelace" in html and "2024" in html


def test_an_unknown_paper_has_nothing_to_cite(client, db):
    assert client.get(reverse("annotations:paper-cite", args=[10**9])).status_code == 404


def test_a_hostile_title_is_escaped_in_every_reference():
    record = {
        "id": "x",
        "type": "paper-conference",
        "title": "<script>alert(1)</script>",
        "issued": {"date-parts": [[2024]]},
    }
    for slug, _ in STYLES:
        assert "<script>" in formatted_reference(record, slug)  # plain text from citeproc...
    paper = make_paper("<script>alert(1)</script>")
    html = render_to_string(
        "annotations/_citation.html",
        citation_context(Paper.objects.with_people_and_tags().get(pk=paper.pk)),
    )
    assert "<script>" not in html  # ...escaped by the template
