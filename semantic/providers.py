"""What the site asks of search by meaning (papers.search.meaning), answered from the vector
index: paper ids only, and only those close enough to be worth listing.

A search lists its neighbours beside its word matches, so a neighbour must be close: at least
the model's bar (semantic/calibration.py: the lowest at which at most one off-topic question in
twenty lists a neighbour). Similar papers are fused with "more like this", which finds
something for any paper; theirs is the model's paper bar.
"""

from __future__ import annotations

from collections.abc import Collection

from semantic import calibration
from semantic.embedder import get_embedder

# semantic.search (numpy, the model's runtime) is imported on the first question, not when
# the app starts: a site with search by meaning off never loads it.


def nearest(text: str, limit: int, among: Collection[int] | None = None) -> list[int]:
    from semantic import search

    model = get_embedder()
    if model is None:
        return []
    bar = calibration.min_cosine(model.name)
    return [pk for pk, score in search.nearest_ids(text, limit, among) if score >= bar]


def neighbours(paper_id: int, limit: int) -> list[int]:
    from semantic import search

    model = get_embedder()
    if model is None:
        return []
    bar = calibration.min_neighbour_cosine(model.name)
    return [pk for pk, score in search.neighbours(paper_id, limit) if score >= bar]
