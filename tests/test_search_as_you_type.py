"""Search as you type on the list page, server side: the htmx fragment and the prefix match.

The browser side (typing, the URL, the back button) is tests/browser/test_search_as_you_type.py.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from papers.models import TagKind
from papers.search.query import Clause, parse_query
from tests.factories import make_paper
from tests.test_search_parser import ODD_QUERIES

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def corpus(db):
    return {
        "diffusion": make_paper(
            "Diffusion models for planning",
            abstract="We plan with generative models of trajectories.",
            tags=[("Oral", TagKind.TRACK)],
        ),
        "learning": make_paper(
            "Learning to walk",
            abstract="Robots trained with reinforcement learning walk quickly.",
            tags=[("Poster", TagKind.TRACK)],
        ),
        "attention": make_paper(
            "Sparse attention",
            abstract="Attention over long contexts, made cheap.",
            tags=[("Poster", TagKind.TRACK)],
        ),
    }


def listed(client, params: dict, **headers) -> str:
    response = client.get(reverse("papers:list"), params, **headers)
    assert response.status_code == 200
    return response.content.decode()


def titles(html: str) -> list[str]:
    return re.findall(r'<h2 class="paper-title"><a [^>]*>([^<]*)</a>', html)


def typed(client, q: str, **params) -> list[str]:
    return titles(listed(client, {"q": q, "typing": "1", **params}, **HTMX))


def track_count(html: str, label: str) -> int:
    """The count shown next to a value of the track facet."""
    match = re.search(
        rf'<span class="facet-label">{label}</span>\s*<span class="count"[^>]*>(\d+)</span>', html
    )
    assert match, f"no {label} count"
    return int(match.group(1))


def test_htmx_request_gets_the_results_fragment_with_its_counts(client, corpus):
    html = listed(client, {"q": "planning"}, **HTMX)
    assert "<html" not in html and "<form" not in html
    assert 'id="browse-results"' in html
    assert "1 paper for “planning”" in html
    assert track_count(html, "Oral") == 1
    assert "Poster" not in html  # no match in that track: no value shown
    assert "<title>Search: planning" in html


def test_fragment_counts_follow_the_search(client, corpus):
    assert track_count(listed(client, {"q": "walk"}, **HTMX), "Poster") == 1
    assert track_count(listed(client, {"q": "attention"}, **HTMX), "Poster") == 1
    assert track_count(listed(client, {}, **HTMX), "Poster") == 2


def test_whole_page_without_htmx_and_for_a_history_restore(client, corpus):
    for headers in ({}, {**HTMX, "HTTP_HX_HISTORY_RESTORE_REQUEST": "true"}):
        html = listed(client, {"q": "planning"}, **headers)
        assert "<html" in html and '<form method="get"' in html
        assert 'id="browse-results"' in html


def test_response_varies_on_the_htmx_headers(client, corpus):
    response = client.get(reverse("papers:list"), {"q": "planning"})
    assert "HX-Request" in response["Vary"]
    assert "HX-History-Restore-Request" in response["Vary"]


def test_fragment_keeps_the_form_fields_the_sort_menu_needs(client, corpus):
    """sort_for is swapped with the sort menu, so a sort picked after typing is kept."""
    html = listed(client, {"q": "models", "sort": "title", "sort_for": "models"}, **HTMX)
    assert '<input type="hidden" name="sort_for" value="models">' in html
    assert '<option value="title" selected>' in html


def test_typing_a_new_search_ranks_by_relevance(client, corpus):
    params = {"q": "diffu", "typing": "1", "sort": "newest", "sort_for": ""}
    html = listed(client, params, **HTMX)
    assert '<option value="relevance" selected>' in html


def test_last_word_matches_as_a_prefix_while_typing(client, corpus):
    assert typed(client, "diffu") == ["Diffusion models for planning"]
    assert titles(listed(client, {"q": "diffu"})) == []  # a submitted search: whole words
    assert titles(listed(client, {"q": "diffu"}, **HTMX)) == []  # htmx, but not typing


def test_a_typed_word_past_its_stem_still_matches(client, corpus):
    # "learning" is indexed as "learn": "learni" is not its prefix.
    for text in ("lear", "learn", "learni", "learnin", "learning"):
        assert "Learning to walk" in typed(client, text), text


def test_only_the_last_word_is_a_prefix(client, corpus):
    assert typed(client, "planning mod") == ["Diffusion models for planning"]
    assert typed(client, "diffu mod") == []  # "diffu" was finished: a whole word, in no paper
    assert typed(client, "diffu ") == []  # a space ends the word


def test_phrase_being_typed_matches_its_last_word_as_a_prefix(client, corpus):
    assert typed(client, '"diffusion mod') == ["Diffusion models for planning"]
    assert typed(client, '"models diffu') == []  # the words in that order
    assert typed(client, '"diffusion mod"') == []  # a closed quote ends the word


def test_one_letter_does_not_expand(client, corpus):
    assert typed(client, "d") == []
    assert typed(client, "s") == []


def test_excluded_word_is_never_a_prefix(client, corpus):
    assert typed(client, "walk -lear") == ["Learning to walk"]


def test_the_form_never_sends_the_typing_flag(client, corpus):
    html = listed(client, {"q": "diffusion"})
    assert 'name="typing"' not in html


@pytest.mark.parametrize(
    "query",
    [*ODD_QUERIES, "diffu*", ".*", "a.*", "(?i)dif", "[a-z]+", "diff\\", "x" * 39, "é" * 30],
)
def test_hostile_text_while_typing_never_errors(client, corpus, query):
    for headers in ({}, HTMX):
        response = client.get(reverse("papers:list"), {"q": query, "typing": "1"}, **headers)
        assert response.status_code == 200


def test_parser_marks_only_an_open_last_word():
    def marked(text):
        return [c.prefix for g in parse_query(text, prefix_last=True) for c in g]

    assert parse_query("graph mo", prefix_last=True) == (
        (Clause(("graph",)), Clause(("mo",), prefix=True)),
    )
    assert marked("mo") == [True]
    assert marked("m") == [False]
    assert marked("mo ") == [False]
    assert marked("mo.") == [False]
    assert marked("graph -mo") == [False, False]
    assert marked("graph th") == [False, True]
    assert marked("graph the") == [False]  # a stop word is dropped, as when submitted
    assert parse_query("mo") == ((Clause(("mo",)),),)  # without the flag: a whole word
