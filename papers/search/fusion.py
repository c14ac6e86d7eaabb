"""Hybrid ranking: a search's word matches (BM25) and its papers close in meaning, as one list.

The caller hands the engine the search's meaning (`BrowseQuery.meaning`, a meaning.Question
the semantic app answers from its vector index); the engine never embeds text. The engine asks
it for the papers nearest the search *among those the selected facets and "mine" allow*
(`neighbours_within`): from the filters' own Tantivy query, either the ids it matches, for an
exact scan of their vectors, or, when it allows many, the HNSW index's nearest papers, enough
of them that MEANING_LIMIT pass the filters. A listing then matches the papers with the words
*or* among those neighbours, so the total and the pages are exact over what is listed, and
each listed paper says why it is there (`reasons`: the words, meaning, or both).

Its order is reciprocal rank fusion (Cormack et al., 2009): a paper's score is the sum of
1 / (RRF_K + rank) over the two rankings it appears in. Only the head is fused: the first
FUSION_DEPTH word matches and every neighbour. Past the head the word matches follow in BM25
order, without the neighbours already listed, so a deep page is found with one search whose
offset is exact, whatever the page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import tantivy

from papers.search import schema
from papers.search.building import all_of, hit_count, unscored_filter
from papers.search.meaning import MEANING_LIMIT, Neighbours

Occur = tantivy.Occur
Query = tantivy.Query

# The usual constant of reciprocal rank fusion: rank 1 and rank 10 weigh 1/61 and 1/70, so one
# ranking's top does not drown the other's.
RRF_K = 60
# How much the meaning ranking weighs against the words' (1), and the words' weight when the
# search fell back on most of its words because few papers hold them all (papers.search.loose):
# a long question in a researcher's own words is matched better by meaning than by its words.
# Chosen on a grid over the judged questions (bench/fusion_grid.py, docs/semantic.md).
MEANING_WEIGHT = 3.0
LOOSE_WORDS_WEIGHT = 0.5
# How many word matches are fused with the neighbours (at most MAX_MEANING of those).
FUSION_DEPTH = 100
# A filter allowing at most this many papers is searched by an exact scan of their vectors;
# a wider one by the HNSW index. Measured (docs/semantic.md, bench/filtered_meaning_bench.py):
# below it the scan is the faster, above it the index.
EXACT_SCAN_MAX = 5000
# The HNSW index is asked for this many times the neighbours the filter's share of the
# catalogue should hold, so that MEANING_LIMIT pass the filter when it is not correlated with
# the question; when fewer pass, the filter's papers are scanned exactly.
OVERFETCH = 2
# Which of the HNSW index's neighbours a filter keeps is asked with an OR of their ids up to
# this many: at 100,000 papers a term set query of 401 paper ids (a 15% filter's fetch) took
# 3-8 ms, building its automaton over the whole id dictionary, the OR 1 ms; near 3,000 ids the
# term set is the faster (bench/hybrid_bench.py, docs/semantic.md).
KEPT_OR_TERMS = 1000


@dataclass(frozen=True)
class Fusion:
    """How the word ranking and the meaning ranking are fused (reciprocal rank fusion)."""

    k: int = RRF_K
    meaning_weight: float = MEANING_WEIGHT
    loose_words_weight: float = LOOSE_WORDS_WEIGHT


@dataclass(frozen=True)
class Fused:
    ids: list[int]
    total: int


def neighbours_within(
    searcher: tantivy.Searcher,
    meaning: Neighbours,
    filters: list[Query],
    limit: int = MEANING_LIMIT,
) -> list[int]:
    """The `limit` papers nearest the search in meaning among those `filters` allow (and the
    index holds), best first."""
    if not filters:
        return _kept(searcher, meaning.nearest(limit), filters)
    allowed = all_of(filters)
    count = hit_count(searcher.search(allowed, 1))
    if not count:
        return []
    if count > EXACT_SCAN_MAX:
        everything = searcher.num_docs
        fetch = min(everything, math.ceil(limit * everything / count * OVERFETCH))
        found = meaning.nearest(fetch)
        kept = _kept(searcher, found, filters)
        # Enough passed, or no paper beyond those found is close enough (or indexed).
        if len(kept) >= limit or len(found) < fetch:
            return kept[:limit]
    # Few allowed, or the filter's papers lie farther from the question than most: its own.
    return _kept(searcher, meaning.nearest(limit, _ids(searcher, allowed, count)), filters)


def reasons(
    searcher: tantivy.Searcher, words: Query, neighbours: Sequence[int], ids: Sequence[int]
) -> tuple[frozenset[int], frozenset[int]]:
    """Of the listed `ids`, those close in meaning, and of those the ones without the words."""
    close = frozenset(ids) & frozenset(neighbours)
    if not close:
        return frozenset(), frozenset()
    matched = all_of([words, unscored_filter(schema.ID, close)])
    return close, close - frozenset(_ids(searcher, matched, len(close)))


def reciprocal_rank_fusion(
    *rankings: Sequence[int], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[int]:
    """The ids of every ranking, by the sum of weight / (k + rank) over the rankings holding
    them (ranks from 1, weights 1 unless given); ties keep the order in which the ids were
    first seen."""
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights or [1.0] * len(rankings), strict=True):
        for rank, pk in enumerate(ranking, start=1):
            scores[pk] = scores.get(pk, 0.0) + weight / (k + rank)
    return sorted(scores, key=lambda pk: -scores[pk])


def fused_ranking(
    words: Sequence[int], meaning: Sequence[int], *, loose: bool, fusion: Fusion = Fusion()
) -> list[int]:
    """The head of a hybrid listing: the word matches `words` (BM25 order) and the neighbours
    `meaning` (nearest first) by weighted reciprocal rank fusion; `loose` when the words are
    those of the loose fallback (few papers hold them all), which weigh less then."""
    words_weight = fusion.loose_words_weight if loose else 1.0
    return reciprocal_rank_fusion(
        words, meaning, k=fusion.k, weights=(words_weight, fusion.meaning_weight)
    )


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
    loose: bool = False,
) -> Fused:
    """The page at `offset` of the fused ranking of `words` and `meaning_ids` (neighbours
    within `filters`), both under `filters`, and the number of papers either matches;
    `loose` when `words` is the loose fallback's (fused_ranking)."""
    lexical = _ids(searcher, all_of([words, *filters]), FUSION_DEPTH)
    meaning = _kept(searcher, meaning_ids, filters)
    head = fused_ranking(lexical, meaning, loose=loose)
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
    return Fused(ids, total)


def _kept(
    searcher: tantivy.Searcher, meaning_ids: Sequence[int], filters: list[Query]
) -> list[int]:
    """The neighbours the filters keep (and the index holds), in their own order."""
    if not meaning_ids:
        return []
    ids = unscored_filter(schema.ID, meaning_ids, max_or_terms=KEPT_OR_TERMS)
    neighbours = all_of([ids, *filters])
    kept = set(_ids(searcher, neighbours, len(meaning_ids)))
    return [pk for pk in meaning_ids if pk in kept]


def _ids(searcher: tantivy.Searcher, matches: Query, limit: int, offset: int = 0) -> list[int]:
    if limit <= 0:
        return []
    result = searcher.search(matches, limit, count=False, offset=offset)
    addresses = [address for _, address in result.hits]
    values = searcher.fast_field_values(schema.ID, addresses) if addresses else []
    return [pk for pk in values if isinstance(pk, int)]
