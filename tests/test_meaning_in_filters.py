"""Search by meaning inside the filters (issue 40, point 1).

A catalogue of two venues and a question whose closest papers overall are in venue A, while
venue B holds a few close ones too. Under Venue = B the list page lists B's closest papers,
marked close in meaning, with exact counts; without the filter A's come first (and B's vanish,
as every filtered search's did before). Each result says why it is listed, and a paper listed
for its meaning alone highlights none of the question's words.

The real semantic app answers (its vector index, its exact scan of a filter's papers), with
an embedder whose vectors are chosen: each paper's cosine with the question is set by hand.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from django.urls import reverse

from papers.models import Paper, TagKind
from papers.search import fusion
from semantic import calibration, search
from semantic import embedder as embedder_module

# Imported here, before the page's code loads other native libraries: onnxruntime, which
# semantic.index loads first, segfaults when imported late in this process (the real model's
# loader imports it at once; this test's embedder never does).
from semantic.index import VectorIndex  # noqa: F401
from semantic.models import PaperEmbedding
from semantic.services import embed_papers
from tests.factories import make_paper, make_reading_list, make_tag, make_user

pytestmark = pytest.mark.django_db

QUESTION = "federated hospitals"
DIMENSIONS = 4
# Title -> cosine with the question; every other text is orthogonal to it.
COSINES: dict[str, float] = {}


class ChosenEmbedder:
    """Vectors chosen by hand: a paper's cosine with QUESTION is COSINES[its title]."""

    name = "chosen-test"
    dimensions = DIMENSIONS

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.vstack([self._vector(text) for text in texts]).astype(np.float32)

    def _vector(self, text: str) -> np.ndarray:
        if text == QUESTION:
            return np.array([1.0, 0.0, 0.0, 0.0])
        title = text.split(". ")[0]
        cosine = COSINES.get(title, 0.0)
        return np.array([cosine, math.sqrt(1 - cosine**2), 0.0, 0.0])


def chosen_embedder(onnx_path) -> ChosenEmbedder:
    return ChosenEmbedder()


def paper(title: str, cosine: float, venue: str, abstract: str):
    COSINES[title] = cosine
    return make_paper(title, abstract=abstract, tags=[(venue, TagKind.VENUE)])


@pytest.fixture
def catalogue(settings):
    """Venue A: 32 papers closer to the question than any of B's, none with its words (more
    than the MEANING_LIMIT nearest of the whole catalogue). Venue B: one paper with the words
    only, one with the words and close, two close ones without "federated" (one says
    "hospitals"), one far."""
    settings.SEMANTIC_SEARCH = "auto"
    settings.SEMANTIC_EMBEDDER = f"{__name__}.chosen_embedder"
    embedder_module.reset()
    search.reset()
    COSINES.clear()
    a = [
        paper(f"Glacier study {n}", 0.95 - n * 0.001, "Venue A", "Ice sheets and oceans.")
        for n in range(32)
    ]
    b = {
        "words": paper(
            "Scheduling nurses", 0.0, "Venue B", "Federated hospitals share nurse rosters."
        ),
        "both": paper("Private training", 0.8, "Venue B", "Federated learning across hospitals."),
        "meaning": paper(
            "Clinical data silos", 0.7, "Venue B", "Models learnt where hospitals keep records."
        ),
        "meaning2": paper("Split learning", 0.6, "Venue B", "Training without pooling data."),
        "far": paper("Tulip markets", 0.1, "Venue B", "Prices of flowers."),
    }
    embedder = embedder_module.get_embedder()
    assert isinstance(embedder, ChosenEmbedder)
    embed_papers(embedder)
    yield {"a": a, "b": b, "venue_b": make_tag("Venue B", TagKind.VENUE)}
    embedder_module.reset()
    search.reset()


def listing(client, **params) -> str:
    return client.get(reverse("papers:list"), {"q": QUESTION, **params}).content.decode()


def listed(html: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<li class="paper-item" id="paper-(\d+)"', html)]


def item(html: str, pk: int) -> str:
    start = html.index(f'id="paper-{pk}"')
    return html[start : html.index("</li>", start)]


def found_by(html: str, pk: int) -> str:
    return re.search(r'data-found-by="(\w+)"', item(html, pk)).group(1)


def expected_total(papers: list[Paper]) -> int:
    """Computed apart from the engine: the papers with both words, and the MEANING_LIMIT
    nearest of `papers` by their stored vectors at the site's bar."""
    words = {
        p.pk
        for p in papers
        if all(w in f"{p.title} {p.abstract}".lower() for w in QUESTION.split())
    }
    question = ChosenEmbedder().embed([QUESTION])[0]
    rows = PaperEmbedding.objects.filter(paper__in=papers)
    cosines = {row.paper_id: float(row.as_array() @ question) for row in rows}
    close = sorted(
        (pk for pk, c in cosines.items() if c >= calibration.min_cosine(ChosenEmbedder.name)),
        key=lambda pk: -cosines[pk],
    )[: fusion.MEANING_LIMIT]
    return len(words | set(close))


# The three ways the engine finds a filter's nearest papers: an exact scan of them; the HNSW
# index asked for enough that MEANING_LIMIT pass; and, when too few of those pass (here: the
# A papers fill the HNSW answer), the exact scan after all.
WAYS = {
    "exact scan": {"EXACT_SCAN_MAX": 5000},
    "HNSW": {"EXACT_SCAN_MAX": 0},
    "HNSW, then exact": {"EXACT_SCAN_MAX": 0, "OVERFETCH": 0.1},
}


@pytest.mark.parametrize("way", WAYS)
def test_under_a_venue_its_closest_papers_are_listed_first_and_counted(
    client, catalogue, monkeypatch, way
):
    for name, value in WAYS[way].items():
        monkeypatch.setattr(fusion, name, value)
    b = catalogue["b"]
    html = listing(client, venue=catalogue["venue_b"].slug)
    ids = listed(html)
    close = [b["both"].pk, b["meaning"].pk, b["meaning2"].pk]
    assert ids[0] == b["both"].pk  # closest in meaning, and has the words
    assert [pk for pk in ids if pk in close] == close  # in order of closeness
    assert set(ids) == {*close, b["words"].pk}  # the far paper is not close enough
    total = expected_total(list(Paper.objects.filter(tags=catalogue["venue_b"])))
    assert total == 4 and f"{total} papers" in html
    assert [found_by(html, pk) for pk in close] == ["both", "meaning", "meaning"]


def test_without_the_filter_the_closer_venue_comes_first(client, catalogue):
    """The positive control: over the whole catalogue, A's papers are the nearest ones, and
    B's close papers without the words are not among them."""
    b = catalogue["b"]
    html = listing(client)
    ids = listed(html)
    closest_a = catalogue["a"][0].pk
    assert found_by(html, closest_a) == "meaning"
    assert ids.index(closest_a) < 3
    assert b["meaning"].pk not in ids and b["meaning2"].pk not in ids
    total = expected_total(list(Paper.objects.all()))
    assert total == 2 + fusion.MEANING_LIMIT and f"{total} papers" in html


def test_a_members_reading_list_is_searched_by_meaning_the_same(client, catalogue):
    b, a = catalogue["b"], catalogue["a"]
    member = make_user()
    mine = [b["meaning2"], b["far"], b["words"], a[-1]]
    make_reading_list(member, papers=mine)
    client.force_login(member)
    html = listing(client, mine="lists")
    ids = listed(html)
    # Within the list, the last A paper is the closest, then B's "Split learning".
    assert [pk for pk in ids if pk != b["words"].pk] == [a[-1].pk, b["meaning2"].pk]
    assert set(ids) == {a[-1].pk, b["meaning2"].pk, b["words"].pk}
    assert f"{expected_total(mine)} papers" in html
    assert found_by(html, b["meaning2"].pk) == "meaning"
    # A visitor's search of the whole catalogue lists neither as close in meaning.
    client.logout()
    assert b["meaning2"].pk not in listed(listing(client))


def test_each_result_says_why_and_marks_only_the_words_that_matched(client, catalogue):
    b = catalogue["b"]
    html = listing(client, venue=catalogue["venue_b"].slug)
    words, both, meaning = (item(html, b[name].pk) for name in ("words", "both", "meaning"))
    assert "Your words</p>" in words and "<mark>" in words
    assert "Your words, and close in meaning" in both and "<mark>" in both
    # "hospitals" is in its abstract, but "federated" is not: it is listed for its meaning
    # alone, and no word of the question is marked as if it had matched.
    assert "Close in meaning only" in meaning
    assert "hospitals" in meaning and "<mark>" not in meaning
