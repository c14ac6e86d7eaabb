"""Similar papers: the same topic ("more like this" on title and abstract), co-authored
ones ranked up, each with what it shares."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import cache

import tantivy

from papers.latex import without_latex_commands
from papers.search import schema
from papers.search.analysis import index_schema, indexed_terms
from papers.search.building import FIELD_BOOSTS, MAX_PAGE_SIZE, paper_id_of
from papers.search.fusion import reciprocal_rank_fusion
from papers.search.query import STOP_WORDS
from papers.search.snippets import documents_by_id
from papers.search.values import Similar

Occur = tantivy.Occur
Query = tantivy.Query

SIMILAR_AUTHORS = 20  # a paper's first authors considered for "shares N authors"
SIMILAR_TERMS = 25  # words of the paper's title and abstract "more like this" looks at
MIN_TOPIC_TERM_CHARS = 3  # shorter terms ("ai", "x") say little about a topic
SIMILAR_REASON_TERMS = 3
# A shared author adds this share of the best topical score, so co-authored papers on the same
# topic rise to the top while an unrelated paper of a shared author does not swamp the list.
SHARED_AUTHOR_WEIGHT = 0.5
# With neighbours in meaning, this many "more like this" papers are fused with them.
MEANING_DEPTH = 30


def similar(
    searcher: tantivy.Searcher, paper_id: int, limit: int = 5, meaning_ids: Sequence[int] = ()
) -> list[Similar]:
    """Papers on the same topic ("more like this" on title and abstract), co-authored ones
    ranked up, best first, each with what it shares. Excludes the paper itself.

    `meaning_ids` are the paper's neighbours in meaning, best first (the semantic app's): the
    two rankings are fused (reciprocal rank fusion), so a paper close in meaning that says it
    in other words is offered, and one sharing only a rare word ("nearly") sinks."""
    source = documents_by_id(searcher, [paper_id]).get(paper_id)
    if source is None or limit < 1:
        return []
    limit = min(limit, MAX_PAGE_SIZE)
    title = without_latex_commands(source.get_first(schema.TITLE) or "")
    abstract = without_latex_commands(source.get_first(schema.ABSTRACT) or "")
    authors = list(dict.fromkeys(int(a) for a in source.get_all(schema.AUTHOR_IDS)))
    authors = authors[:SIMILAR_AUTHORS]
    not_itself = (Occur.MustNot, Query.term_query(index_schema(), schema.ID, paper_id))
    topical = _like_this(searcher, {schema.TITLE: title, schema.ABSTRACT: abstract})
    best = searcher.search(Query.boolean_query([(Occur.Should, topical), not_itself]), 1).hits
    # Scores of the "more like this" query vary with the paper; a shared author is worth a
    # share of the best one.
    author_score = (best[0][0] if best else 1.0) * SHARED_AUTHOR_WEIGHT
    ranked = Query.boolean_query(
        [
            (Occur.Should, topical),
            *(
                (
                    Occur.Should,
                    Query.const_score_query(
                        Query.term_query(index_schema(), schema.AUTHOR_IDS, a), author_score
                    ),
                )
                for a in authors
            ),
            not_itself,
        ]
    )
    meaning = [pk for pk in meaning_ids if pk != paper_id]
    depth = limit if not meaning else max(limit, MEANING_DEPTH)
    hits = searcher.search(ranked, depth).hits
    if meaning:
        addresses = [address for _, address in hits]
        values = searcher.fast_field_values(schema.ID, addresses) if addresses else []
        by_words = [pk for pk in values if isinstance(pk, int)]
        # Meaning first: on a tie, closeness in meaning beats a shared rare word.
        chosen = reciprocal_rank_fusion(meaning, by_words)[:limit]
        found = documents_by_id(searcher, chosen)
        documents = [found[pk] for pk in chosen if pk in found]
    else:
        documents = [searcher.doc(address) for _, address in hits]
    source_words = _topic_words(searcher, title, abstract)
    result = []
    for document in documents:
        theirs = {int(a) for a in document.get_all(schema.AUTHOR_IDS)}
        their_stems = {
            stem
            for text in document.get_all(schema.TITLE) + document.get_all(schema.ABSTRACT)
            for _, stem in indexed_terms(text)
        }
        shared = [word for stem, word in source_words if stem in their_stems]
        result.append(
            Similar(
                id=paper_id_of(document),
                shared_authors=len(theirs.intersection(authors)),
                shared_terms=tuple(shared[:SIMILAR_REASON_TERMS]),
                close_in_meaning=paper_id_of(document) in meaning,
            )
        )
    return result


def _like_this(searcher: tantivy.Searcher, texts: Mapping[str, str]) -> Query:
    """ "More like this": the SIMILAR_TERMS terms of these field texts with the highest tf-idf
    (weighted by field as a search is, FIELD_BOOSTS: a title word says more about the topic
    than an abstract's), each a term query boosted by it; terms in one paper only, or too
    common to tell a topic, left out.

    Tantivy has this query, but 0.27's panics (a Rust assertion, not a Python error) on an
    index holding deleted documents, which every update leaves until a merge: it divides
    doc_freq, which counts deleted documents, by the live ones (tantivy pull request 2964).
    Term queries count both the same way.
    """
    frequencies: dict[tuple[str, str], int] = {}
    for field_name, text in texts.items():
        for _, term in indexed_terms(text):
            if len(term) >= MIN_TOPIC_TERM_CHARS and term not in _stop_terms():
                frequencies[field_name, term] = frequencies.get((field_name, term), 0) + 1
    documents, common = searcher.num_docs, _common(searcher)
    scored = []
    for (field_name, term), count in frequencies.items():
        doc_freq = searcher.doc_freq(field_name, term)
        if 2 <= doc_freq <= common:  # the paper itself and at least one other
            idf = math.log(1 + max(documents - doc_freq, 0.5) / (doc_freq + 0.5))
            scored.append((count * idf * FIELD_BOOSTS[field_name], field_name, term))
    best = sorted(scored, reverse=True)[:SIMILAR_TERMS]
    return Query.boolean_query(
        [
            (Occur.Should, Query.boost_query(Query.term_query(index_schema(), name, term), score))
            for score, name, term in best
        ]
    )


@cache
def _stop_terms() -> frozenset[str]:
    # Terms are analysed words: the stop words stemmed too ("thi").
    stemmed = {term for word in STOP_WORDS for _, term in indexed_terms(word)}
    return frozenset(STOP_WORDS | stemmed)


_LETTERS = re.compile(r"[^\W\d_]{3,}")


def _topic_words(searcher, title: str, abstract: str) -> list[tuple[str, str]]:
    """(stem, word as written) of the paper's telling words, rarest in the catalogue first.

    Telling: in the title, or repeated in the abstract; never a stop word, a number or a word
    too common to choose "more like this" terms. The word shown is the paper's own first
    spelling of the stem, lowercased.
    """
    spelled: dict[str, str] = {}
    repeats: dict[str, int] = {}
    stems: dict[str, list[str]] = {}  # each distinct word analysed once
    for text, weight in ((title, 2), (abstract, 1)):
        for word in _LETTERS.findall(text.lower()):
            if word in STOP_WORDS:
                continue
            if word not in stems:
                stems[word] = [stem for _, stem in indexed_terms(word)]
            for stem in stems[word]:
                spelled.setdefault(stem, word)
                repeats[stem] = repeats.get(stem, 0) + weight
    telling = [stem for stem, n in repeats.items() if n >= 2][: SIMILAR_TERMS * 2]
    rarity = {stem: searcher.doc_freq(schema.ABSTRACT, stem) for stem in telling}
    telling = [stem for stem in telling if rarity[stem] <= _common(searcher)]
    return [(stem, spelled[stem]) for stem in sorted(telling, key=lambda s: (rarity[s], s))]


def _common(searcher) -> int:
    # A word in a fifth of the catalogue ("learning", "model") says little about a topic.
    return max(10, searcher.num_docs // 5)
