"""What the site asks of search by meaning (papers.search.meaning), answered from the vector
index: paper ids only, and only those close enough to be worth listing.

A search lists its neighbours beside its word matches, so a neighbour must be close
(settings.SEMANTIC_MIN_COSINE, 0.3 by default): on the
judged questions (docs/search.md) the relevant papers' cosine with their question is 0.34 on
average, the 30th nearest paper's 0.36; a bar of 0.30 keeps recall@10 at its best (0.35 lost
0.016) while a search for a subject the catalogue lacks lists no neighbour at all. Similar
papers are fused with "more like this", which finds something for any paper.
"""

from __future__ import annotations

from collections.abc import Collection

from django.conf import settings

MIN_NEIGHBOUR_COSINE = 0.3


# semantic.search (numpy, the model's runtime) is imported on the first question, not when
# the app starts: a site with search by meaning off never loads it.


def nearest(text: str, limit: int, among: Collection[int] | None = None) -> list[int]:
    from semantic import search

    bar = settings.SEMANTIC_MIN_COSINE
    return [pk for pk, score in search.nearest_ids(text, limit, among) if score >= bar]


def neighbours(paper_id: int, limit: int) -> list[int]:
    from semantic import search

    found = search.neighbours(paper_id, limit)
    return [pk for pk, score in found if score >= MIN_NEIGHBOUR_COSINE]
