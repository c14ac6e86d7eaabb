"""The paper page's "Cite" section: the BibTeX entry every export writes for the paper, and
formatted references (APA, IEEE) by citeproc-py, each with a Copy button."""

from __future__ import annotations

import bibtexparser
import pytest
from django.template import Context, Template

from annotations.templatetags.citation_tags import STYLES, formatted_reference
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


def test_paper_page_has_the_cite_section_with_copy_buttons(client, paper):
    content = client.get(paper.get_absolute_url()).content.decode()
    assert 'id="cite-heading"' in content
    for slug, label in [*STYLES, ("bibtex", "BibTeX")]:
        assert f">{label}</h3>" in content
        assert f'id="cite-{slug}"' in content
        assert f'data-copy-target="cite-{slug}"' in content  # its Copy button
    assert "js/cite.js" in content
    assert " onclick=" not in content  # the strict CSP forbids inline handlers


def test_apa_reference_has_authors_year_title_and_full_venue(client, paper):
    response = client.get(paper.get_absolute_url())
    apa = dict((slug, text) for slug, _, text in response.context["references"])["apa"]
    assert apa.startswith("Lovelace, A. K., & Turing, A. (2024). Attention & Über-Flows.")
    assert ICLR_2024 in apa and "https://openreview.net/forum?id=abc" in apa
    # Plain text, escaped once by the template.
    assert "Attention &amp; Über-Flows" in response.content.decode()


def test_ieee_reference_has_no_number_label(client, paper):
    response = client.get(paper.get_absolute_url())
    ieee = dict((slug, text) for slug, _, text in response.context["references"])["ieee"]
    assert ieee.startswith("A. K. Lovelace and A. Turing, “Attention & Über-Flows”")
    assert f"in {ICLR_2024}, 2024" in ieee


def test_bibtex_on_the_page_is_the_exports_entry(client, paper):
    response = client.get(paper.get_absolute_url())
    [entry] = bibtexparser.parse_string(response.context["bibtex"]).entries
    assert entry.key == f"lovelace2024attention-{paper.pk}"  # as in every export
    assert entry.fields_dict["booktitle"].value == ICLR_2024
    assert entry.fields_dict["author"].value == "Lovelace, Ada King and Turing, Alan"


def test_a_paper_without_authors_or_venue_is_cited_without_inventing_them(client):
    paper = make_paper("Lonely paper")
    response = client.get(paper.get_absolute_url())
    [entry] = bibtexparser.parse_string(response.context["bibtex"]).entries
    assert "author" not in entry.fields_dict and "booktitle" not in entry.fields_dict
    for _, _, text in response.context["references"]:
        assert "Lonely paper" in text and "Anonymous" not in text


def test_the_tag_adds_no_query_to_the_paper_page(paper, django_assert_num_queries):
    loaded = Paper.objects.with_people_and_tags().get(pk=paper.pk)
    with django_assert_num_queries(0):
        html = Template("{% load citation_tags %}{% paper_citation paper %}").render(
            Context({"paper": loaded})
        )
    assert "Lovelace" in html and "2024" in html


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
    loaded = Paper.objects.with_people_and_tags().get(pk=paper.pk)
    html = Template("{% load citation_tags %}{% paper_citation paper %}").render(
        Context({"paper": loaded})
    )
    assert "<script>" not in html  # ...escaped by the template
