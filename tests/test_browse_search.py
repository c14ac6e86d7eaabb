"""Search on the paper list: ranking, snippets, sorting, combining with facets, empty queries."""

from __future__ import annotations

import pytest
from django.urls import reverse

from papers.models import TagKind
from tests.factories import make_paper


def get_list(client, params: dict):
    response = client.get(reverse("papers:list"), params)
    assert response.status_code == 200
    return response


@pytest.fixture
def corpus(db):
    return {
        "abstract_only": make_paper(
            "Learning to walk",
            abstract="Robots trained with diffusion policies learn locomotion quickly.",
            tags=[("Poster", TagKind.TRACK)],
        ),
        "title": make_paper(
            "Diffusion models for planning",
            abstract="We plan with generative models of trajectories.",
            tags=[("Oral", TagKind.TRACK)],
        ),
        "unrelated": make_paper(
            "Sparse attention", abstract="Attention over long contexts, made cheap."
        ),
    }


def test_title_match_ranks_above_abstract_only_match(client, corpus):
    response = get_list(client, {"q": "diffusion"})
    titles = [paper.title for paper in response.context["papers"]]
    assert titles == ["Diffusion models for planning", "Learning to walk"]
    content = response.content.decode()
    assert content.index("Diffusion models for planning") < content.index("Learning to walk")
    assert response.context["options"].sort == "relevance"


def test_snippet_highlights_the_match(client, corpus):
    response = get_list(client, {"q": "locomotion"})
    assert "<mark>locomotion</mark>" in response.content.decode()


def test_snippet_escapes_markup_from_the_abstract(client, db):
    make_paper("Injection", abstract="A <script>alert('x')</script> payload about robustness.")
    response = get_list(client, {"q": "robustness"})
    content = response.content.decode()
    assert "<mark>robustness</mark>" in content
    assert "<script>alert" not in content
    assert "&lt;script&gt;" in content


def test_search_combines_with_facets(client, corpus):
    response = get_list(client, {"q": "diffusion", "track": "poster"})
    assert [paper.title for paper in response.context["papers"]] == ["Learning to walk"]
    track_counts = {
        value.label: value.count
        for value in next(f for f in response.context["facets"] if f.param == "track").values
    }
    # Tracks are counted over the search results without the track selection.
    assert track_counts == {"Poster": 1, "Oral": 1}


def test_search_can_be_sorted_by_title(client, corpus):
    response = get_list(client, {"q": "diffusion", "sort": "title"})
    titles = [paper.title for paper in response.context["papers"]]
    assert titles == ["Diffusion models for planning", "Learning to walk"]


def test_relevance_sort_without_a_query_falls_back_to_newest(client, corpus):
    response = get_list(client, {"sort": "relevance"})
    assert response.context["options"].sort == "newest"
    assert [p.title for p in response.context["papers"]][0] == "Sparse attention"
    assert b'value="relevance"' not in response.content


@pytest.mark.parametrize(
    "query", ["the and of", '"', "*", "(", "NEAR", "-", "“ ”", "🙂", "\u0000\u0000the"]
)
def test_query_with_nothing_searchable_shows_no_results(client, corpus, query):
    response = get_list(client, {"q": query})
    assert response.context["total"] == 0
    assert b"No results" in response.content


@pytest.mark.parametrize("query", ["-diffusion", '-"sparse attention" -robots', "NOT diffusion"])
def test_a_query_of_exclusions_only_says_it_needs_a_word_to_look_for(client, corpus, query):
    response = get_list(client, {"q": query})
    html = response.content.decode()
    assert response.context["total"] == 0
    assert "only excludes" in html
    assert "very common words" not in html  # "diffusion" is neither common nor punctuation


def test_query_without_matches_shows_no_results(client, corpus):
    response = get_list(client, {"q": "zyzzyva"})
    assert response.context["total"] == 0
    assert b"No results" in response.content


def test_search_state_is_kept_in_links(client, db):
    for n in range(12):
        make_paper(f"Diffusion study {n}")
    response = get_list(client, {"q": "diffusion", "per_page": 10})
    assert 'href="?q=diffusion&amp;per_page=10&amp;page=2"' in response.content.decode()


def test_untitled_papers_come_last_in_title_order(client, db):
    # Imported without a title, awaiting curation: listed after every titled paper.
    untitled = make_paper("", abstract="No title yet.")
    make_paper("Beta", abstract="Second.")
    make_paper("Alpha", abstract="First.")
    response = get_list(client, {"sort": "title"})
    assert [paper.pk for paper in response.context["papers"]][-1] == untitled.pk
    assert [paper.title for paper in response.context["papers"]] == ["Alpha", "Beta", ""]


def sort_options(response) -> list[str]:
    return [key for key, _ in response.context["sort_choices"]]


def test_the_rating_sort_is_offered_only_once_some_paper_has_a_rating(client, db):
    make_paper("Unreviewed", abstract="No reviews.")
    response = get_list(client, {})
    assert sort_options(response) == ["title", "newest"]
    # A link asking for it gets the page's own order, which the menu shows.
    response = get_list(client, {"sort": "rating"})
    assert response.context["options"].sort == "newest"
    assert '<option value="newest" selected>' in response.content.decode()

    make_paper("Reviewed", abstract="Reviewed.", mean_rating=7.0)
    response = get_list(client, {"sort": "rating"})
    assert sort_options(response) == ["title", "newest", "rating"]
    assert response.context["options"].sort == "rating"


def test_a_misspelt_search_that_finds_nothing_offers_the_nearest_words(client, corpus):
    response = get_list(client, {"q": "difusion modles", "track": "oral", "page": "2"})
    assert response.context["total"] == 0
    assert response.context["spelling"] == "diffusion models"
    # The same view (its filters kept) with the words corrected, from its first page.
    assert (
        '<p class="spelling">Did you mean <a href="/?q=diffusion+models&amp;track=oral">'
        "diffusion models</a>?</p>"
    ) in response.content.decode()
    corrected = get_list(client, {"q": "diffusion models", "track": "oral"})
    assert [paper.title for paper in corrected.context["papers"]] == [
        "Diffusion models for planning"
    ]


def test_no_spelling_is_offered_when_the_words_are_known_or_nothing_is_near(client, corpus):
    # Known words that match nothing together (two: too few to fall back on some of them);
    # a word near nothing indexed.
    for q in ["locomotion attention", "qwertyuiop"]:
        response = get_list(client, {"q": q})
        assert response.context["total"] == 0 and response.context["spelling"] is None
        assert "Did you mean" not in response.content.decode()
