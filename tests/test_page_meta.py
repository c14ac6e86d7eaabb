"""What the pages say about themselves: a description, an icon, and on a paper's page the
citation_* tags that reference managers' browser connectors (Zotero, Mendeley) read."""

from __future__ import annotations

import html

import pytest

from papers.models import TagKind
from tests.factories import make_paper

pytestmark = pytest.mark.django_db


def meta(content: str, name: str) -> list[str]:
    prefix = f'<meta name="{name}" content="'
    return [html.unescape(part.split('">', 1)[0]) for part in content.split(prefix)[1:]]


def test_a_paper_page_carries_citation_tags(client):
    paper = make_paper(
        "Flows & Diffusion",
        abstract="We study flows. " * 30,
        authors=["Ada Lovelace", "Alan Turing"],
        tags=[("ICLR 2024", TagKind.VENUE), ("Oral", TagKind.TRACK)],
        pdf_url="https://openreview.net/pdf?id=x1",
        doi="10.1000/flows",
        arxiv_id="2310.01234",
    )
    response = client.get(paper.get_absolute_url())
    assert response.status_code == 200
    content = response.content.decode()
    assert meta(content, "citation_title") == ["Flows & Diffusion"]
    assert meta(content, "citation_author") == ["Ada Lovelace", "Alan Turing"]
    assert meta(content, "citation_conference_title") == ["ICLR 2024"]
    assert meta(content, "citation_pdf_url") == ["https://openreview.net/pdf?id=x1"]
    assert meta(content, "citation_doi") == ["10.1000/flows"]
    assert meta(content, "citation_arxiv_id") == ["2310.01234"]
    (description,) = meta(content, "description")
    assert description.startswith("We study flows.") and len(description) <= 200


def test_a_paper_without_links_has_no_empty_citation_tags(client):
    paper = make_paper("Bare", pdf_url="")
    content = client.get(paper.get_absolute_url()).content.decode()
    assert meta(content, "citation_title") == ["Bare"]
    for name in ("citation_pdf_url", "citation_doi", "citation_arxiv_id", "citation_author"):
        assert meta(content, name) == []


def test_every_page_has_a_description_and_an_icon(client):
    response = client.get("/")
    assert response.status_code == 200
    content = response.content.decode()
    assert len(meta(content, "description")) == 1
    assert '<link rel="icon" href="/static/img/favicon.svg"' in content
    favicon = client.get("/favicon.ico")
    # Not permanent: in production the URL carries the file's hash, which changes with it.
    assert favicon.status_code == 302 and favicon["Location"] == "/static/img/favicon.svg"
