"""Keywords and primary areas on the pages: facets with counts on the list, tags on the paper."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from papers.models import Tag, TagKind
from papers.search import counting
from tests.factories import make_paper

VENUE, KEYWORD, AREA = TagKind.VENUE, TagKind.KEYWORD, TagKind.AREA


@pytest.fixture
def catalogue(db):
    return {
        "graphs": make_paper(
            "Message passing",
            tags=[("ICLR 2024", VENUE), ("graphs", KEYWORD), ("GNN", KEYWORD), ("learning", AREA)],
        ),
        "both": make_paper(
            "Graph diffusion",
            tags=[("ICLR 2024", VENUE), ("graphs", KEYWORD), ("diffusion", KEYWORD)],
        ),
        "plain": make_paper("Plain", tags=[("ICLR 2024", VENUE)]),
    }


def facet(html: str, param: str) -> dict[str, int]:
    """label -> count of one facet's values on the list page."""
    section = re.search(rf'<fieldset class="facet" id="facet-{param}">(.*?)</fieldset>', html, re.S)
    assert section, f"no {param} facet"
    pairs = re.findall(
        r'<span class="facet-label">([^<]+)</span>\s*<span class="count"[^>]*>(\d+)</span>',
        section.group(1),
    )
    return {label: int(count) for label, count in pairs}


def test_the_list_counts_keywords_and_areas(client, catalogue):
    html = client.get(reverse("papers:list")).content.decode()
    assert facet(html, "keyword") == {"graphs": 2, "diffusion": 1, "GNN": 1}
    assert facet(html, "area") == {"learning": 1}


def test_choosing_a_keyword_filters_and_keeps_its_siblings_counted(client, catalogue):
    slug = Tag.objects.get(kind=KEYWORD, key="diffusion").slug
    response = client.get(reverse("papers:list"), {"keyword": slug})
    html = response.content.decode()
    assert response.status_code == 200
    assert "Graph diffusion" in html and "Message passing" not in html
    assert facet(html, "keyword") == {"diffusion": 1, "graphs": 2, "GNN": 1}  # disjunctive


def test_the_paper_page_shows_its_keywords_and_area(client, catalogue):
    html = client.get(catalogue["graphs"].get_absolute_url()).content.decode()
    for name in ("graphs", "GNN", "learning"):
        assert f">{name}</a>" in html


def test_listings_leave_keywords_to_the_paper_page(client, catalogue):
    html = client.get(reverse("papers:list")).content.decode()
    items = html.split('<ol class="paper-list"', 1)[1]
    assert "tag-area" in items and "tag-keyword" not in items


def test_a_catalogue_without_keywords_shows_no_keyword_or_area_facet(client, db):
    make_paper("Plain", tags=[("ICLR 2024", VENUE)])
    html = client.get(reverse("papers:list")).content.decode()
    assert 'id="facet-venue"' in html
    assert 'id="facet-keyword"' not in html and 'id="facet-area"' not in html


def test_the_keyword_box_finds_keywords_beyond_the_top(client, catalogue):
    html = client.get(reverse("papers:list"), {"keyword_q": "GRAPH"}).content.decode()
    assert facet(html, "keyword") == {"graphs": 2}
    assert 'value="GRAPH"' in html


def test_the_keyword_box_says_when_nothing_matches(client, catalogue):
    html = client.get(reverse("papers:list"), {"keyword_q": "zebra"}).content.decode()
    assert facet(html, "keyword") == {}
    assert "No keyword matches “zebra”." in html


def test_keywords_beyond_the_top_are_found_with_their_counts(client, catalogue, monkeypatch):

    monkeypatch.setattr(counting, "TOP_KEYWORDS", 1)
    plain = client.get(reverse("papers:list")).content.decode()
    assert facet(plain, "keyword") == {"graphs": 2}
    found = client.get(reverse("papers:list"), {"keyword_q": "diff"}).content.decode()
    assert facet(found, "keyword") == {"diffusion": 1}


def test_the_keyword_box_folds_accents_as_the_author_box_does(client, db):
    make_paper("Bridges", tags=[("ICLR 2024", VENUE), ("Schrödinger bridge", KEYWORD)])
    for typed in ("schrodinger", "Schrödinger", "SCHRÖDINGER"):
        html = client.get(reverse("papers:list"), {"keyword_q": typed}).content.decode()
        assert facet(html, "keyword") == {"Schrödinger bridge": 1}, typed


def test_imported_keywords_are_found_without_their_accents(client, db, tmp_path):
    from django.core.management import call_command

    path = tmp_path / "papers.jsonl"
    path.write_text(
        '{"title": "Bridges", "forum_id": "f1", "abstract": "About bridges between laws.",'
        ' "tags": ["ICLR 2024"], "keywords": ["Schrödinger bridge"]}\n',
        encoding="utf-8",
    )
    call_command("import_papers", str(path))
    html = client.get(reverse("papers:list"), {"keyword_q": "schrodinger"}).content.decode()
    assert facet(html, "keyword") == {"Schrödinger bridge": 1}
