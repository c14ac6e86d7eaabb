"""Pseudo-relevance feedback (semantic.search.nearest_ids): a question's nearest papers are
ranked by its vector moved toward the first of them, so that papers saying it as those papers
do come first, while each paper's score stays its cosine with the question itself."""

from __future__ import annotations

import pytest

from semantic import embedder as embedder_module
from semantic import search
from semantic.services import embed_papers
from tests.factories import make_paper
from tests.semantic_helpers import WordHashEmbedder

pytestmark = pytest.mark.django_db


@pytest.fixture
def papers(settings):
    settings.SEMANTIC_SEARCH = "auto"
    settings.SEMANTIC_EMBEDDER = "tests.semantic_helpers.word_hash_embedder"
    embedder_module.reset()
    model = embedder_module.get_embedder()
    assert isinstance(model, WordHashEmbedder)
    found = {
        # The question's nearest paper, which also speaks of ice sheets.
        "glaciers": make_paper("Glacier melt", abstract="Ice sheets thin."),
        # Shares the word "melt" with the question, nothing else with the glaciers.
        "chocolate": make_paper(
            "Chocolate melt", abstract="Dark chocolate truffles with butter cream and cocoa."
        ),
        # No word of the question, every word of the glaciers' abstract.
        "ice": make_paper("Ice sheets", abstract="Ice sheets thin."),
    }
    embed_papers(model)
    return {name: paper.pk for name, paper in found.items()}


def ranked(text: str, among=None) -> list[int]:
    return [pk for pk, _ in search.nearest_ids(text, 3, among)]


def test_feedback_finds_what_the_nearest_papers_also_say(papers, monkeypatch):
    monkeypatch.setattr(search, "FEEDBACK_DEPTH", 1)
    assert ranked("glacier melt") == [papers["glaciers"], papers["ice"], papers["chocolate"]]
    # The same inside a filter (the exact scan of the papers allowed).
    assert ranked("glacier melt", among=set(papers.values())) == ranked("glacier melt")
    # Scored by the question: the ice-sheet paper shares none of its words.
    scores = dict(search.nearest_ids("glacier melt", 3))
    assert scores[papers["ice"]] == pytest.approx(0.0, abs=1e-3)
    assert scores[papers["chocolate"]] > scores[papers["ice"]]


def test_without_feedback_the_question_alone_ranks(papers, monkeypatch):
    monkeypatch.setattr(search, "FEEDBACK_DEPTH", 1)
    monkeypatch.setattr(search, "FEEDBACK_WEIGHT", 0.0)
    assert ranked("glacier melt") == [papers["glaciers"], papers["chocolate"], papers["ice"]]
