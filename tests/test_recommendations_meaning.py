"""Recommendations learn from the papers' embeddings beside their words (issue 30, point 5).

A member who reads about one topic is offered a paper on it written in other words once the
catalogue's embeddings are features; without embeddings (or with too few) the tf-idf model is
what it was.
"""

from __future__ import annotations

import numpy as np
import pytest

from recommendations import services, training
from semantic import embedder as embedder_module
from semantic.services import embed_papers
from tests.factories import make_paper

TOPIC = np.array([1.0, 0.0, 0.0], dtype=np.float32)
ELSEWHERE = np.array([0.0, 1.0, 0.0], dtype=np.float32)


def catalogue() -> list[tuple[int, str]]:
    rows = [(pk, f"bandit regret exploration study {pk}") for pk in range(1, 5)]
    # Paper 10 says the member's topic in other words; 11-30 are about something else.
    rows.append((10, "sequential decisions under uncertainty with payoff feedback"))
    rows += [(pk, f"protein folding structure sequence {pk % 3}") for pk in range(11, 31)]
    rows.append((31, "payoff feedback for protein structure"))  # the other words, not the topic
    return rows


def vectors() -> dict[int, np.ndarray]:
    near = {pk: TOPIC for pk in (1, 2, 3, 4, 10)}
    return near | {pk: ELSEWHERE for pk in range(11, 32)}


SIGNALS = training.Signals(positives=frozenset({1, 2, 3, 4}), lists={})


def test_a_paper_close_in_meaning_without_shared_words_is_recommended_first():
    corpus = training.with_meaning(training.build_corpus(catalogue()), vectors())
    assert corpus.meaning is not None
    first = training.recommend(corpus, SIGNALS, limit=3)[0]
    assert first.paper_id == 10
    # Reasons are still words: the tf-idf columns' weights alone.
    assert all(isinstance(term, str) for term in first.terms)


def test_words_alone_cannot_tell_that_paper_apart():
    words_only = training.build_corpus(catalogue())
    ranked = [s.paper_id for s in training.recommend(words_only, SIGNALS, limit=5)]
    assert ranked[0] != 10


def test_too_few_embeddings_leave_the_words_model_as_it_was():
    corpus = training.build_corpus(catalogue())
    half = dict(list(vectors().items())[:10])
    assert training.with_meaning(corpus, half) is corpus
    assert training.with_meaning(corpus, {}) is corpus
    assert corpus.features() is corpus.matrix


@pytest.mark.django_db
def test_the_run_learns_from_the_stored_embeddings_when_search_by_meaning_is_on(settings):
    """compute_recommendations reads every paper's stored vector (semantic.selectors)."""
    settings.SEMANTIC_SEARCH = "auto"
    settings.SEMANTIC_EMBEDDER = "tests.semantic_helpers.word_hash_embedder"
    embedder_module.reset()
    for n in range(3):
        make_paper(f"Glaciers {n}", abstract="Ice sheets melt under warming oceans.")
    embed_papers(embedder_module.get_embedder())
    assert services.build_corpus().meaning is not None
    settings.SEMANTIC_SEARCH = "off"
    embedder_module.reset()
    assert services.build_corpus().meaning is None
