"""What the site asks of search by meaning (papers.search.meaning), answered from the vector
index: paper ids only, and only those close enough to be worth listing.

A search lists its neighbours beside its word matches, so a neighbour must be close: below
MIN_SEARCH_COSINE a paper shares the question's field at most, not its subject (measured on the
judged questions, docs/search.md). Similar papers are fused with "more like this", which finds
something for any paper, so their neighbours need a lower bar.
"""

from __future__ import annotations

from semantic import search

MIN_SEARCH_COSINE = 0.35
MIN_NEIGHBOUR_COSINE = 0.3


def nearest(text: str, limit: int) -> list[int]:
    return [pk for pk, score in search.nearest_ids(text, limit) if score >= MIN_SEARCH_COSINE]


def neighbours(paper_id: int, limit: int) -> list[int]:
    found = search.neighbours(paper_id, limit)
    return [pk for pk, score in found if score >= MIN_NEIGHBOUR_COSINE]
