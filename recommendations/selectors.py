"""Reads: precomputed recommendations for the pages and for other apps (the digest e-mail),
and a reading list's "more like these" from the search index.

Rows are written by `recommendations.services` through `manage.py compute_recommendations`;
nothing here trains anything.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, QuerySet

from annotations.models import Note, ReadingList, ReadingListItem
from papers.listing import listed_papers
from papers.models import Paper
from papers.search import engine
from papers.search.sync import current_searcher
from recommendations.models import Recommendation

# Rows shown on /recommended/.
PAGE_SIZE = 50
# "More like these": the list's most recently added papers asked about, similar papers asked
# for each, papers shown. Each seed is one "more like this" query on the index.
LIST_SEEDS = 10
SIMILAR_PER_SEED = 20
LIST_SIMILAR_SHOWN = 20
# Reciprocal rank fusion's constant: a paper near the top for several seeds beats one at the
# top for a single seed.
FUSION_K = 10
SHARED_TERMS_SHOWN = 3


def recommended_for(user, limit: int = 10) -> list[Recommendation]:
    """The member's best `limit` recommendations, best first, each with its `paper` loaded.

    One query. Papers the member saved or noted since the run are left out. Empty for an
    anonymous user, for a member with fewer than
    `MIN_POSITIVES` saved, noted or tagged papers, and before the command first ran.
    Each row's `explanation` is a ready sentence ("because of: diffusion; like 3 papers in
    Reading group") naming only the member's own lists, so it is safe to show or mail to them;
    `computed_at` says when it was computed.
    """
    if not getattr(user, "is_authenticated", False):
        return []
    return list(_current(user).select_related("paper").order_by("-score", "paper_id")[:limit])


def recommendations_page(user, limit: int = PAGE_SIZE) -> list[Recommendation]:
    """The /recommended/ rows, each `paper` as listings show it (no abstract, first authors,
    `more_authors`). Two queries whatever the number: the rows, then their papers with their
    first authors (papers.listing.listed_papers)."""
    rows = list(_current(user).order_by("-score", "paper_id")[:limit])
    papers = listed_papers([row.paper_id for row in rows], tags=False)
    by_id = {paper.pk: paper for paper in papers}
    rows = [row for row in rows if row.paper_id in by_id]  # a paper deleted in between
    for row in rows:
        row.paper = by_id[row.paper_id]
    return rows


def _current(user) -> QuerySet[Recommendation]:
    """The member's rows but papers they saved or noted since the last run: a recommendation
    is something they have not got yet (subqueries of the same query)."""
    saved = ReadingListItem.objects.filter(reading_list__owner=user, paper=OuterRef("paper_id"))
    noted = Note.objects.filter(owner=user, paper=OuterRef("paper_id"))
    return Recommendation.objects.filter(user=user).exclude(Exists(saved)).exclude(Exists(noted))


@dataclass(frozen=True)
class ListSimilar:
    paper: Paper
    # How many of the list's papers it is similar to, and words it shares with them.
    like: int
    shared_terms: list[str]


def more_like_list(reading_list: ReadingList, limit: int = LIST_SIMILAR_SHOWN) -> list[ListSimilar]:
    """Papers like the list's (its LIST_SEEDS most recently added), not in it, best first.

    On demand from the search index ("more like this" per paper, fused by rank), so it follows
    the list as it changes. Raises IndexUnavailable when there is no usable index.
    """
    in_list = list(
        ReadingListItem.objects.filter(reading_list=reading_list)
        .order_by("-added_at", "-pk")
        .values_list("paper_id", flat=True)
    )
    if not in_list:
        return []
    excluded = set(in_list)
    searcher = current_searcher()
    fused: dict[int, float] = {}
    like: Counter[int] = Counter()
    terms: dict[int, Counter[str]] = {}
    for seed in in_list[:LIST_SEEDS]:
        for rank, hit in enumerate(engine.similar(searcher, seed, limit=SIMILAR_PER_SEED)):
            if hit.id in excluded:
                continue
            fused[hit.id] = fused.get(hit.id, 0.0) + 1 / (FUSION_K + rank)
            like[hit.id] += 1
            terms.setdefault(hit.id, Counter()).update(hit.shared_terms)
    best = [pk for pk, _ in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]
    papers = listed_papers(best, tags=False)
    return [
        ListSimilar(
            paper=paper,
            like=like[paper.pk],
            shared_terms=[t for t, _ in terms[paper.pk].most_common(SHARED_TERMS_SHOWN)],
        )
        for paper in papers
    ]
