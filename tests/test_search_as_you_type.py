"""Search as you type on the list page, server side: the htmx fragment and the prefix match.

The browser side (typing, the URL, the back button) is tests/browser/test_search_as_you_type.py.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from papers.models import TagKind
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


def pushed_url(client, params: dict) -> str:
    """The address htmx puts in the address bar for this request of the list form."""
    response = client.get(reverse("papers:list"), params, **HTMX)
    return response["HX-Push-Url"]


# What the list form sends from the unsearched page: every field, most of them empty.
FORM = {"q": "", "author_q": "", "keyword_q": "", "sort_for": "", "sort": "newest"}


def test_the_pushed_address_holds_only_what_the_page_shows(client, corpus):
    # A search typed into the box: the form's empty fields, its stale sort and the sort_for
    # bookkeeping are left out.
    assert pushed_url(client, {**FORM, "q": "diffusion", "per_page": "25"}) == "/?q=diffusion"
    # A sort and a page size the member picked, and the filters, are kept.
    picked = {**FORM, "q": "diffusion", "sort_for": "diffusion", "sort": "title"}
    assert pushed_url(client, {**picked, "per_page": "10", "track": "poster"}) == (
        "/?q=diffusion&track=poster&sort=title&per_page=10"
    )
    # A new search after picking a sort is ranked by relevance: so is the address, reloaded.
    assert pushed_url(client, {**picked, "q": "planning"}) == "/?q=planning"
    assert pushed_url(client, {**FORM, "sort": "title"}) == "/?sort=title"
    assert pushed_url(client, FORM) == "/"


def test_the_pushed_address_keeps_the_typing_flag_only_while_it_changes_the_results(client, corpus):
    # "diffu" matched as a prefix: reloaded without the flag, it would find nothing.
    assert pushed_url(client, {**FORM, "q": "diffu", "typing": "1"}) == "/?q=diffu&typing=1"
    # A space ended the word: the flag changes nothing (and the search is kept as searched).
    assert pushed_url(client, {**FORM, "q": " diffusion  ", "typing": "1"}) == "/?q=diffusion"


def test_last_word_matches_as_a_prefix_while_typing_and_once_entered(client, corpus):
    # Issue 27: Enter on the text the typing showed results for must show those results.
    assert typed(client, "diffu") == ["Diffusion models for planning"]
    assert titles(listed(client, {"q": "diffu"})) == ["Diffusion models for planning"]
    assert titles(listed(client, {"q": "diffu"}, **HTMX)) == ["Diffusion models for planning"]


def test_a_typed_word_past_its_stem_still_matches(client, corpus):
    # "learning" is indexed as "learn": "learni" is not its prefix.
    for text in ("lear", "learn", "learni", "learnin", "learning"):
        assert "Learning to walk" in typed(client, text), text


def test_a_typed_prefix_matches_with_or_without_its_accents(client, corpus):
    make_paper("Schrödinger bridges", abstract="Transport between densities.")
    for text in ("schro", "schrö", "SCHRÖD"):
        assert typed(client, text) == ["Schrödinger bridges"], text


def test_a_hyphenated_compound_being_typed_matches_its_last_word_as_a_prefix(client, corpus):
    make_paper("Transformers learn in-context", abstract="In-context learning emerges.")
    assert typed(client, "in-cont") == ["Transformers learn in-context"]


def test_only_the_last_word_is_a_prefix(client, corpus):
    assert typed(client, "planning mod") == ["Diffusion models for planning"]
    assert typed(client, "diffu mod") == []  # "diffu" was finished: a whole word, in no paper
    # A finished last word that the index does not hold is read as a prefix all the same,
    # as Enter reads it; one that it holds stays whole ("plan" does not find "planar").
    assert typed(client, "diffu ") == ["Diffusion models for planning"]
    make_paper("Planar graphs", abstract="Drawn without crossings.")
    assert typed(client, "plan ") == ["Diffusion models for planning"]


def test_phrase_being_typed_matches_its_last_word_as_a_prefix(client, corpus):
    assert typed(client, '"diffusion mod') == ["Diffusion models for planning"]
    assert typed(client, '"models diffu') == []  # the words in that order
    # Closed, the quote ends the word; "mod" is no indexed word, so it is read as one begun.
    assert typed(client, '"diffusion mod"') == ["Diffusion models for planning"]
    assert typed(client, '"diffusion plan"') == []  # "plan" is a word: whole, and not next


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


def test_links_in_the_updated_results_hold_only_what_the_address_holds(client, corpus, user):
    """After an in-place update, the page's links (pages, chips, "Clear all", exports, the
    saved search) build on the pushed address, not on the form's empty fields."""
    for number in range(30):
        make_paper(f"Poster paper {number}", tags=[("Poster", TagKind.TRACK)])
    client.force_login(user)
    params = {**FORM, "track": "poster", "per_page": "10"}
    response = client.get(reverse("papers:list"), params, **HTMX)
    html = response.content.decode()
    assert response["HX-Push-Url"] == "/?track=poster&per_page=10"
    assert 'href="?track=poster&amp;per_page=10&amp;page=2"' in html  # the next page
    assert 'href="/?per_page=10"' in html  # the chip that removes the track, and "Clear all"
    assert 'name="query" value="track=poster&amp;per_page=10"' in html  # the saved search
    links = re.findall(r'href="([^"]*\?[^"]*)"', html)
    assert links and not [link for link in links if re.search(r"(^|[?&;])[a-z_]+=(&|$)", link)]
