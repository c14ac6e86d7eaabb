"""The integrator's API: papers near a text or near a paper, by the cosine of their vectors.

Both return [(paper_id, score)], best first, score = cosine similarity (1 = same direction);
both return [] when semantic search is off, so a caller needs no check of its own (call
`semantic.available()` to say so on the page). Ids may name papers deleted since the index
was caught up only until the next catch-up: callers join them to Paper as with Tantivy's ids.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings

from semantic.embedder import Embedder, get_embedder
from semantic.models import PaperEmbedding

if TYPE_CHECKING:
    from semantic.index import VectorIndex

VECTORS_DIR = "vectors"
QUERY_CACHE_SIZE = 1024
# Pseudo-relevance feedback: the question's nearest max(k, FEEDBACK_POOL) papers are ranked by
# the question's vector moved toward the mean of the first FEEDBACK_DEPTH of them
# (FEEDBACK_WEIGHT times that mean added), which costs no model run and no second look-up. A
# short question in a researcher's own words then ranks first the papers that say it as papers
# do. FEEDBACK_DEPTH 0 turns it off. Chosen on the judged questions (bench/fusion_grid.py,
# docs/semantic.md). The pool is twice the neighbours a search lists (MEANING_LIMIT), and no
# more than asked beyond that: a filter's overfetch (hundreds) is a pool already.
FEEDBACK_DEPTH = 3
FEEDBACK_WEIGHT = 1.0
FEEDBACK_POOL = 60

_lock = threading.Lock()
_indexes: dict[tuple[Path, str, int], VectorIndex] = {}


def vector_index(embedder: Embedder) -> VectorIndex:
    """This process's VectorIndex for settings.SEARCH_INDEX_DIR (a forked child gets its own)."""
    # Here, not at the top: without the extra (usearch) this module still imports.
    from semantic.index import VectorIndex

    directory = Path(settings.SEARCH_INDEX_DIR) / VECTORS_DIR
    key = (directory, embedder.name, os.getpid())
    with _lock:
        index = _indexes.get(key)
        if index is None:
            index = _indexes[key] = VectorIndex(directory, embedder.name, embedder.dimensions)
        return index


def reset() -> None:
    """Forget this process's indexes and cached query vectors (tests)."""
    with _lock:
        _indexes.clear()
    _cached_query_vector.cache_clear()


@functools.lru_cache(maxsize=QUERY_CACHE_SIZE)
def _cached_query_vector(model: str, text: str) -> np.ndarray:
    embedder = get_embedder()
    assert embedder is not None and embedder.name == model
    return embedder.embed([text])[0]


def _query_vector(embedder: Embedder, text: str) -> np.ndarray:
    """Typing and pressing Enter again costs no model run (keyed by model, so a test's
    model and the real one never share vectors)."""
    return _cached_query_vector(embedder.name, text)


def nearest_ids(
    text: str, k: int = 10, among: Collection[int] | None = None
) -> list[tuple[int, float]]:
    """The k papers whose title and abstract are closest in meaning to `text`: of the whole
    catalogue (the HNSW index, approximate), or of the papers `among` (an exact scan of their
    vectors: what a search inside a filter asks when the filter allows few papers)."""
    embedder = get_embedder()
    if embedder is None or not text.strip():
        return []
    vector = _query_vector(embedder, text.strip())
    vectors = vector_index(embedder).vectors()

    def look_up(question: np.ndarray, count: int) -> list[tuple[int, float]]:
        if among is not None:
            return vectors.nearest_among(question, count, among)
        return vectors.nearest(question, count)

    if not FEEDBACK_DEPTH or not FEEDBACK_WEIGHT:
        return look_up(vector, k)
    pool = look_up(vector, max(k, FEEDBACK_POOL))
    if not pool:
        return []
    rows = vectors.rows_of([pk for pk, _ in pool])
    # Scored by the question itself, so that the model's bar means what it says.
    cosines = rows @ np.asarray(vector, dtype=np.float32)
    return [(pool[i][0], round(float(cosines[i]), 6)) for i in feedback_order(vector, rows, k)]


def feedback_order(question: np.ndarray, pool: np.ndarray, k: int) -> np.ndarray:
    """Of the rows `pool` (the question's nearest papers' vectors, nearest first), the indices
    of the k nearest the question moved toward the first FEEDBACK_DEPTH of them, best first."""
    moved = with_feedback(question, pool[:FEEDBACK_DEPTH])
    return np.argsort(-(pool @ moved), kind="stable")[:k]


def with_feedback(
    vector: np.ndarray, nearest: np.ndarray, weight: float = FEEDBACK_WEIGHT
) -> np.ndarray:
    """The question's unit vector moved toward the mean of its nearest papers' rows (`nearest`,
    one a row): the vector pseudo-relevance feedback looks up."""
    moved = np.asarray(vector, dtype=np.float32) + weight * nearest.astype(np.float32).mean(0)
    return moved / np.linalg.norm(moved)


def neighbours(paper_id: int, k: int = 10) -> list[tuple[int, float]]:
    """The k papers closest in meaning to this paper (not itself); [] if it has no vector."""
    embedder = get_embedder()
    if embedder is None:
        return []
    row = PaperEmbedding.objects.filter(paper_id=paper_id, model=embedder.name).first()
    if row is None:
        return []
    found = vector_index(embedder).vectors().nearest(row.as_array(), k + 1)
    return [(pk, score) for pk, score in found if pk != paper_id][:k]
