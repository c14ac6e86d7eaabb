"""Suggestions as you type: papers whose title or authors begin with what was typed."""

from __future__ import annotations

import tantivy

from papers.search import schema
from papers.search.analysis import indexed_terms
from papers.search.building import (
    MAX_PAGE_SIZE,
    field_query,
    greek_spelled,
    prefix_field_queries,
    typed_prefix,
)
from papers.search.query import Clause

Occur = tantivy.Occur
Query = tantivy.Query


def suggest(searcher: tantivy.Searcher, typed: Clause | None, limit: int) -> list[int]:
    """Ids of up to `limit` papers for what someone typed of a title or an author, best first;
    with Greek letters, then those matching them as LaTeX spells them (greek_spelled)."""
    found = _suggest(searcher, typed, limit)
    spelled = greek_spelled(typed) if typed is not None else None
    if spelled is not None and len(found) < limit:
        found += [pk for pk in _suggest(searcher, spelled, limit) if pk not in found]
    return found[:limit]


def _suggest(searcher: tantivy.Searcher, typed: Clause | None, limit: int) -> list[int]:
    """Ids of up to `limit` papers for what someone typed of a title or an author, best first.

    `typed` comes from query.parse_typed_words. Three groups, each ranked by BM25 on its field
    and each coming after the one before: titles holding the words as a phrase, titles holding
    all of them in any order, papers whose authors' names hold all of them. The last word
    matches as a prefix when `typed` says so ("diffusion transf" finds "Diffusion
    Transformers"). One search per group, each stopping at `limit` hits.
    """
    limit = min(limit, MAX_PAGE_SIZE)
    if typed is None or limit < 1:
        return []
    terms = indexed_terms(" ".join(typed.words), skip_stop_words=True)
    if not terms:
        return []
    prefix = typed_prefix(typed, terms)
    groups = [
        _all_words_query(schema.TITLE, terms, prefix),
        _all_words_query(schema.AUTHORS, terms, prefix),
    ]
    if len(terms) > 1:
        groups.insert(0, _phrase_query(schema.TITLE, terms, prefix))
    found: dict[int, None] = {}
    for query in groups:
        hits = searcher.search(query, limit + len(found)).hits
        addresses = [address for _, address in hits]
        ids = searcher.fast_field_values(schema.ID, addresses) if addresses else []
        found.update(dict.fromkeys(pk for pk in ids if isinstance(pk, int)))
        if len(found) >= limit:
            break
    return list(found)[:limit]


def _phrase_query(field_name: str, terms: list[tuple[int, str]], prefix: str | None) -> Query:
    if prefix is None:
        return field_query(field_name, terms)
    alternatives = prefix_field_queries(field_name, terms[:-1], terms[-1][0], prefix)
    return Query.boolean_query([(Occur.Should, query) for query in alternatives])


def _all_words_query(field_name: str, terms: list[tuple[int, str]], prefix: str | None) -> Query:
    """Every term in the field, anywhere; the last one as a prefix when `prefix` is set."""
    *before, (position, last) = terms
    required = [field_query(field_name, [term]) for term in before]
    required.append(_phrase_query(field_name, [(position, last)], prefix))
    return Query.boolean_query([(Occur.Must, query) for query in required])
