"""Suggestions for "find a paper by what you remember" (GET /suggest/, engine.suggest).

The box itself (typing, keyboard, picking) is tests/browser/test_suggest.py; adding a paper to
a reading list by its title is tests/test_suggest_add_paper.py.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.db.models import Q
from django.urls import reverse

from papers.models import Paper, TagKind
from papers.search import engine
from papers.search.query import parse_typed_words
from papers.search.store import IndexUnavailable
from papers.search.sync import current_searcher
from papers.suggest import MAX_SUGGESTIONS, first_authors, identifier_lookups
from tests.factories import make_paper
from tests.test_search_parser import ODD_QUERIES

pytestmark = pytest.mark.django_db

URL = reverse("papers:suggest")


@pytest.fixture
def corpus(db):
    venue = [("ICLR 2024", TagKind.VENUE)]
    return {
        "dit": make_paper(
            "Scalable Diffusion Transformers",
            abstract="Transformers replace the U-Net.",
            authors=["William Peebles", "Saining Xie"],
            tags=venue,
        ),
        "split": make_paper(
            "Transformers for diffusion of heat",
            abstract="Physics.",
            authors=["Ada Lovelace"],
        ),
        "by_author": make_paper(
            "Generative models of images",
            abstract="A paper on diffusion transformers by an author called Diffusion.",
            authors=["Diffusion Transformerson"],
        ),
        "other": make_paper("Sparse attention", abstract="Cheap attention."),
    }


def suggested(client, q: str) -> list[int]:
    response = client.get(URL, {"q": q})
    assert response.status_code == 200
    return [int(pk) for pk in re.findall(r'data-paper-id="(\d+)"', response.content.decode())]


# --- What the box reads ----------------------------------------------------------------------


def test_identifiers_are_read_with_the_catalogue_normalisers():
    numbered = make_paper("Numbered")
    digits = make_paper("Forum id of digits", forum_id=str(numbered.pk))
    arxiv = make_paper("On arXiv", arxiv_id="2310.01234")
    doi = make_paper("With a DOI", doi="10.1000/abc")

    def named(text):
        return [list(Paper.objects.filter(lookup)) for lookup in identifier_lookups(text)]

    assert named(f"#{numbered.pk}") == [[numbered]]
    # A run of digits is a paper number first, then possibly a forum id.
    assert named(f" {numbered.pk} ") == [[numbered], [digits]]
    assert named("arXiv:2310.01234v2") == [[arxiv]]
    assert named("https://doi.org/10.1000/ABC") == [[doi]]
    assert named("a b") == []
    # Digits no paper number can have, and digits that are not ASCII, name no paper number.
    assert named("9" * 40) == [[]]  # a forum id, of no paper
    assert named("²") == []


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query planner")
def test_identifier_lookups_use_the_partial_indexes_on_sqlite():
    for text in ("diffusion", "12", "arXiv:2310.01234", "10.1000/abc"):
        named = Q(pk__in=[1, 2])
        for lookup in identifier_lookups(text):
            named |= lookup
        plan = Paper.objects.filter(named).order_by().values_list("pk").explain()
        assert "SCAN papers_paper" not in plan, (text, plan)


def test_first_authors_names_three_then_et_al():
    assert first_authors("") == ""
    assert first_authors("A B, C D") == "A B, C D"
    assert first_authors("A, B, C, D") == "A, B, C et al."
    # A name the stored opening cuts off is not shown half.
    assert first_authors("Ann Lee, " + "x" * 400) == "Ann Lee et al."


# --- Ranking -------------------------------------------------------------------------------


def test_the_last_word_is_a_prefix(client, corpus):
    assert suggested(client, "diffusion transf")[0] == corpus["dit"].pk
    assert suggested(client, "scalable diff") == [corpus["dit"].pk]


def test_title_phrase_then_title_words_then_authors(client, corpus):
    # The phrase "diffusion transformers" is in one title; both words (in another order) in a
    # second; in the third paper, only its author's name and its abstract hold them.
    assert suggested(client, "diffusion transformers") == [
        corpus["dit"].pk,
        corpus["split"].pk,
        corpus["by_author"].pk,
    ]
    assert suggested(client, "peeb") == [corpus["dit"].pk]
    assert suggested(client, "saining xie") == [corpus["dit"].pk]


def test_exact_identifiers_come_first(client, corpus):
    named = make_paper("Unrelated", forum_id="diffusion", arxiv_id="2310.01234", doi="10.1000/xyz")
    assert suggested(client, "diffusion")[0] == named.pk
    assert suggested(client, "diffusion")[1:] == [
        corpus["dit"].pk,
        corpus["split"].pk,
        corpus["by_author"].pk,
    ]
    for typed in (
        str(named.pk),
        f"#{named.pk}",
        "https://openreview.net/forum?id=diffusion",
        "arXiv:2310.01234v2",
        "https://doi.org/10.1000/XYZ",
    ):
        assert suggested(client, typed)[0] == named.pk, typed


def test_at_most_eight(client):
    for n in range(MAX_SUGGESTIONS + 3):
        make_paper(f"Diffusion study {n}")
    assert len(suggested(client, "diffusion stu")) == MAX_SUGGESTIONS


def test_engine_limit_and_nothing_typed(corpus):
    searcher = current_searcher()
    assert engine.suggest(searcher, parse_typed_words("transformers"), 1) == [corpus["dit"].pk]
    assert engine.suggest(searcher, None, 8) == []
    assert engine.suggest(searcher, parse_typed_words("diffusion"), 0) == []


# --- The fragment --------------------------------------------------------------------------


def test_fragment_names_title_authors_venue_and_links(client, corpus):
    response = client.get(URL, {"q": "scalable"})
    html = response.content.decode()
    paper = corpus["dit"]
    assert '<ul class="suggestions" role="listbox"' in html
    option = re.search(r'<li class="suggestion" role="option"[^>]*>', html).group()
    assert f'data-paper-id="{paper.pk}"' in option
    assert f'data-paper-url="{paper.get_absolute_url()}"' in option
    assert '<span class="suggestion-title" data-math>Scalable Diffusion Transformers</span>' in html
    assert "William Peebles, Saining Xie · ICLR 2024" in html


def test_latex_titles_are_escaped_and_left_for_the_math_renderer(client):
    make_paper(r"Bounds on $\alpha<\beta$ for <script>alert(1)</script> & co")
    html = client.get(URL, {"q": "bounds"}).content.decode()
    assert "<script>" not in html
    assert r"Bounds on $\alpha&lt;\beta$ for &lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html


def test_answers_are_cacheable_privately(client, corpus):
    response = client.get(URL, {"q": "diffusion"})
    directives = {part.strip() for part in response["Cache-Control"].split(",")}
    assert directives == {"private", "max-age=60"}
    assert "Cookie" in response["Vary"]
    assert "HX-Request" not in response.get("Vary", "")  # always the same fragment


def test_one_engine_call_and_one_query(client, corpus, django_assert_num_queries):
    current_searcher()  # the index is built on first use; later requests only check it
    with django_assert_num_queries(2):  # the change counter; the papers with venue, authors
        assert len(suggested(client, "diffusion transf")) == 3


# --- Odd input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "q", [*ODD_QUERIES, "x" * 10_000, "diffusion\x00", "AND", "title:diff*", '"(*:']
)
def test_odd_input_never_errors(client, corpus, q):
    response = client.get(URL, {"q": q})
    assert response.status_code == 200
    assert response.content.decode().count('role="option"') <= MAX_SUGGESTIONS


@pytest.mark.parametrize("q", ["", "   ", "x" * 10_000, '"', "(", "*", ":", "AND"])
def test_empty_or_hostile_input_suggests_nothing(client, corpus, q):
    assert suggested(client, q) == []


def test_query_syntax_is_never_syntax(client, corpus):
    make_paper("AND OR NOT: a (tricky) title*")
    tricky = suggested(client, "and or not: a (tricky")
    assert len(tricky) == 1
    # Tantivy's syntax would read these as a field, a wildcard and a boolean: here they are
    # words and punctuation, so nothing beyond the words matches.
    assert suggested(client, "title:diffusion*") == []
    assert suggested(client, "diffusion OR attention") == []


def test_index_unavailable_is_an_empty_list_with_a_message(client, corpus, monkeypatch):
    def unavailable():
        raise IndexUnavailable("no index")

    monkeypatch.setattr("papers.suggest.current_searcher", unavailable)
    response = client.get(URL, {"q": "diffusion"})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'role="option"' not in html
    assert "Suggestions are unavailable right now" in html


def test_only_get(client):
    assert client.post(URL, {"q": "x"}).status_code == 405


@pytest.mark.parametrize("typed", ["http://[", "https://[::1/forum?id=abc", "http://]x["])
def test_a_malformed_url_suggests_nothing_rather_than_failing(client, corpus, typed):
    # urlsplit raises ValueError on an unclosed IPv6 bracket; the box is public and answered
    # such text with a 500.
    assert identifier_lookups(typed) == []
    assert suggested(client, typed) == []
