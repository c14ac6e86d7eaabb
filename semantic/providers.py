"""What the site asks of search by meaning (papers.search.meaning), answered from the vector
index: paper ids only, and only those close enough to be worth listing.

A search lists its neighbours beside its word matches, so a neighbour must be close: at least
the model's bar (semantic/calibration.py; all-MiniLM-L6-v2's 0.3 keeps recall@10 on the judged
questions at its best while a search for a subject the catalogue lacks lists no neighbour at
all). Similar papers are fused with "more like this", which finds something for any paper.
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
