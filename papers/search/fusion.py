"""Hybrid ranking: a search's word matches (BM25) and its papers close in meaning, as one list.

The caller hands the engine the papers nearest the search in meaning, best first
(`BrowseQuery.meaning_ids`, from the semantic app's vector index); the engine never embeds
text. A listing then matches the papers with the words *or* among those neighbours, each
filtered by the selected facets as any match is, so the counts stay exact over what is listed.

Its order is reciprocal rank fusion (Cormack et al., 2009): a paper's score is the sum of
1 / (RRF_K + rank) over the two rankings it appears in. Only the head is fused: the first
FUSION_DEPTH word matches and every neighbour. Past the head the word matches follow in BM25
order, without the neighbours already listed, so a deep page is found with one search whose
offset is exact, whatever the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import tantivy

from papers.search import schema
from papers.search.building import all_of, hit_count, unscored_filter

Occur = tantivy.Occur
Query = tantivy.Query

# The usual constant of reciprocal rank fusion: rank 1 and rank 10 weigh 1/61 and 1/70, so one
# ranking's top does not drown the other's.
RRF_K = 60
# How many word matches are fused with the neighbours (at most MAX_MEANING of those).
FUSION_DEPTH = 100


@dataclass(frozen=True)
class Fused:
    ids: list[int]
    total: int
    by_meaning: frozenset[int]  # of `ids`, those listed without the search's words


def reciprocal_rank_fusion(*rankings: Sequence[int], k: int = RRF_K) -> list[int]:
    """The ids of every ranking, by the sum of 1 / (k + rank) over the rankings holding them
    (ranks from 1); ties keep the order in which the ids were first seen."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, pk in enumerate(ranking, start=1):
            scores[pk] = scores.get(pk, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda pk: -scores[pk])


def either(words: Query, meaning_ids: Sequence[int]) -> Query:
    """The papers with the words or among the neighbours: what a hybrid listing matches."""
    return Query.boolean_query(
        [(Occur.Should, words), (Occur.Should, unscored_filter(schema.ID, meaning_ids))]
    )


def fused_page(
    searcher: tantivy.Searcher,
    words: Query,
    meaning_ids: Sequence[int],
    filters: list[Query],
    *,
    offset: int,
    limit: int,
) -> Fused:
    """The page at `offset` of the fused ranking of `words` and `meaning_ids`, both under
    `filters`, and the number of papers either matches."""
    lexical = _ids(searcher, all_of([words, *filters]), FUSION_DEPTH)
    meaning = _kept(searcher, meaning_ids, filters)
    head = reciprocal_rank_fusion(lexical, meaning)
    total = hit_count(searcher.search(all_of([either(words, meaning_ids), *filters]), 1))
    ids = head[offset : offset + limit]
    if len(ids) < limit and offset + len(ids) < total:
        # The tail: the word matches after the head's, in BM25 order, without the neighbours
        # (listed in the head already). Those the head took from the first FUSION_DEPTH word
        # matches are the tail ranking's first ones, so its offset is exact.
        not_neighbours = Query.boolean_query(
            [
                (Occur.Must, all_of([words, *filters])),
                (Occur.MustNot, unscored_filter(schema.ID, meaning)),
            ]
        )
        taken = len(set(lexical) - set(meaning))
        tail_offset = taken + max(0, offset - len(head))
        ids += _ids(searcher, not_neighbours, limit - len(ids), offset=tail_offset)
    with_words = set(_ids(searcher, all_of([words, unscored_filter(schema.ID, ids)]), len(ids)))
    return Fused(ids, total, frozenset(pk for pk in ids if pk not in with_words))


def _kept(
    searcher: tantivy.Searcher, meaning_ids: Sequence[int], filters: list[Query]
) -> list[int]:
    """The neighbours the filters keep (and the index holds), in their own order."""
    if not meaning_ids:
        return []
    neighbours = all_of([unscored_filter(schema.ID, meaning_ids), *filters])
    kept = set(_ids(searcher, neighbours, len(meaning_ids)))
    return [pk for pk in meaning_ids if pk in kept]


def _ids(searcher: tantivy.Searcher, matches: Query, limit: int, offset: int = 0) -> list[int]:
    if limit <= 0:
        return []
    result = searcher.search(matches, limit, count=False, offset=offset)
    addresses = [address for _, address in result.hits]
    values = searcher.fast_field_values(schema.ID, addresses) if addresses else []
    return [pk for pk in values if isinstance(pk, int)]
