"""Tantivy queries built term by term from a parsed search (never Tantivy's own query
syntax), and the small query helpers every part of the engine uses."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

import tantivy

from papers.search import schema
from papers.search.analysis import folded_word, index_schema, indexed_terms, splitter, stemmer
from papers.search.greek import spelled_letters, split_glued_names
from papers.search.query import MAX_PHRASE_WORDS, MIN_PREFIX_CHARS, Clause, ParsedQuery

Occur = tantivy.Occur
Query = tantivy.Query

# BM25 weight of a hit by field: a word in the title counts three times one in the abstract,
# one in the PDF's text a fifth: BM25 gives a word repeated all through a paper up to 2.2 times
# one said once in a short text, and the body should stay below the abstract even then.
FIELD_BOOSTS = {schema.TITLE: 3.0, schema.AUTHORS: 2.0, schema.ABSTRACT: 1.0, schema.BODY: 0.2}
# Tantivy allocates for offset + limit hits up front: both are bounded, whatever the caller says.
MAX_PAGE_SIZE = 1000


def field_query(field_name: str, terms: list[tuple[int, str]]) -> Query:
    if len(terms) == 1:
        return Query.term_query(index_schema(), field_name, terms[0][1])
    first = terms[0][0]
    return Query.phrase_query(index_schema(), field_name, [(p - first, t) for p, t in terms])


def clause_query(clause: Clause, fields: Iterable[str] = tuple(FIELD_BOOSTS)) -> Query | None:
    """The clause's query; with Greek letters in it, either as typed or as LaTeX spells them
    ("αTC-VAE" also finds "$\\alpha$TC-VAE", "π2vec" "$\\pi$2vec"), and with a Greek name
    glued to what follows, either as typed or split ("alphaTC-VAE" finds them too). In the
    text `fields` (all of them unless told: a snippet asks where a clause matched)."""
    variants = [clause]
    for variant in (greek_spelled(clause), _names_split(clause)):
        if variant is not None and variant not in variants:
            variants.append(variant)
    fields = tuple(fields)
    queries = [q for q in (_words_query(v, fields) for v in variants) if q is not None]
    if len(queries) < 2:
        return queries[0] if queries else None
    return Query.boolean_query([(Occur.Should, q) for q in queries])


def greek_spelled(clause: Clause) -> Clause | None:
    """The clause with its Greek letters spelled as LaTeX names them; None without any."""
    text = " ".join(clause.words)
    spelled = spelled_letters(text)
    if spelled == text:
        return None
    return replace(clause, words=tuple(spelled.split())[:MAX_PHRASE_WORDS])


def _names_split(clause: Clause) -> Clause | None:
    """The clause with Greek names glued to the rest of a word split off; None without any."""
    split = split_glued_names(clause.words)
    if split == clause.words:
        return None
    # A clause's words are a phrase: "alpha tc" stays together, as "alphatc" was.
    return replace(clause, words=split[:MAX_PHRASE_WORDS])


def _words_query(clause: Clause, fields: tuple[str, ...]) -> Query | None:
    """A word or phrase in any of the text `fields`, weighted by field; None if nothing is
    indexable.

    A phrase's stop words only hold their place, as in PostgreSQL's phrase search: "learn to
    grasp" matches "learn for grasp" too. Matching them would read the positions of "the" or
    "of" in nearly every abstract, for every phrase searched. A hyphenated compound's count
    ("in-context"): without "in" it would be "context", anywhere.
    """
    terms = indexed_terms(" ".join(clause.words), skip_stop_words=not clause.exact)
    if not terms:
        return None
    typed = typed_prefix(clause, terms)
    return Query.boolean_query(
        [
            (Occur.Should, Query.boost_query(query, FIELD_BOOSTS[name]))
            for name in fields
            for query in (
                [field_query(name, terms)]
                if typed is None
                else prefix_field_queries(name, terms[:-1], terms[-1][0], typed)
            )
        ]
    )


# A typed word that has gone past its stem ("learni", "performanc") is not a prefix of the
# indexed term ("learn", "perform"): the typed word's openings this many characters shorter
# (and no shorter than MIN_STEM_CHARS) are looked up as whole terms too. Measured on the seed
# abstracts' words, every opening of 2+ letters of every word finds its stem for 99%.
STEM_LOOKBACK = 4
MIN_STEM_CHARS = 3


def typed_prefix(clause: Clause, terms: list[tuple[int, str]]) -> str | None:
    """The clause's last word as the index spells its terms (lowercase, folded, unstemmed),
    when it matches as a prefix: the word is still being typed and its last token is
    indexable."""
    if not clause.prefix:
        return None
    tokens = splitter().analyze(clause.words[-1])
    if len(tokens) != 1 or len(tokens[0].encode()) >= schema.MAX_TOKEN_BYTES:
        return None
    word = folded_word(tokens[0])
    if len(word) < MIN_PREFIX_CHARS or not word.isalnum() or terms[-1][1] != stem_word(word):
        return None
    return word


def stem_word(word: str) -> str:
    stemmed = stemmer().analyze(word)
    return stemmed[0] if stemmed else ""


def prefix_field_queries(
    field_name: str, before: list[tuple[int, str]], position: int, word: str
) -> list[Query]:
    """Ways `before` followed by a word beginning with `word` (at `position`) match a field.

    The prefix is a regex of the word's letters and digits only (nothing in it is syntax),
    expanded against the field's terms; a phrase uses Tantivy's phrase prefix query, whose
    expansion is capped (50 terms). The stem of the word and its shorter openings are matched
    as whole terms (see STEM_LOOKBACK).
    """
    whole_terms = dict.fromkeys(
        [stem_word(word)]
        + [word[:n] for n in range(max(MIN_STEM_CHARS, len(word) - STEM_LOOKBACK), len(word))]
    )
    queries = [field_query(field_name, [*before, (position, term)]) for term in whole_terms]
    if before:
        first = before[0][0]
        words: list[str | tuple[int, str]] = [(p - first, t) for p, t in before]
        words.append((position - first, word))
        queries.append(Query.phrase_prefix_query(index_schema(), field_name, words))
    else:
        queries.append(Query.regex_query(index_schema(), field_name, re.escape(word) + ".*"))
    return queries


def text_query(parsed: ParsedQuery) -> Query | None:
    """The search as a Tantivy query: groups OR-ed, clauses AND-ed, exclusions MustNot.

    None when nothing in it can match: a group needing a word the index cannot hold (such as a
    thousand-letter "word") is dropped, like a group with nothing searchable in the parser.
    """
    groups = []
    for group in parsed:
        subqueries = []
        for clause in group:
            query = clause_query(clause)
            if query is None and not clause.negated:
                break  # a required word that no document holds
            if query is not None:
                subqueries.append((Occur.MustNot if clause.negated else Occur.Must, query))
        else:
            if any(occur == Occur.Must for occur, _ in subqueries):
                groups.append(Query.boolean_query(subqueries))
    if not groups:
        return None
    if len(groups) == 1:
        return groups[0]
    return Query.boolean_query([(Occur.Should, group) for group in groups])


# A word matched as a prefix is highlighted where these many of its commonest completions are.
MAX_HIGHLIGHTED_COMPLETIONS = 50


def wanted_words_query(
    parsed: ParsedQuery,
    searcher: tantivy.Searcher,
    documents: dict[int, tantivy.Document],
    field_name: str = schema.ABSTRACT,
) -> Query | None:
    """Every wanted (not excluded) term once, in the abstract (or `field_name`): what a
    snippet highlights.

    A word matched as a prefix ("diffu" typed, "diff*") adds the terms it matched in the
    abstracts of `documents` (the snippet generator highlights terms only, and a prefix is no
    term of the index: its stem "diffu" would highlight nothing)."""
    terms = dict.fromkeys(
        term
        for group in parsed
        for clause in group
        if not clause.negated
        for _, term in indexed_terms(" ".join(clause.words), skip_stop_words=True)
    )
    shown = any_of(schema.ID, documents)
    for group in parsed:
        for clause in group:
            if clause.negated or not clause.prefix:
                continue
            found = indexed_terms(" ".join(clause.words), skip_stop_words=True)
            typed = typed_prefix(clause, found) if found else None
            if typed is None:
                continue
            completions = searcher.terms_with_prefix(
                field_name, typed, filter_query=shown, limit=MAX_HIGHLIGHTED_COMPLETIONS
            )
            terms.update(dict.fromkeys(term for term, count in completions if count))
            # A word typed past its stem ("learni") matched the stem ("learn"): see STEM_LOOKBACK.
            shortest = max(MIN_STEM_CHARS, len(typed) - STEM_LOOKBACK)
            terms.update(dict.fromkeys(typed[:n] for n in range(shortest, len(typed))))
    if not terms:
        return None
    return Query.boolean_query(
        [(Occur.Should, Query.term_query(index_schema(), field_name, t)) for t in terms]
    )


# Up to this many values, "any of" is an OR of term queries; more make a term set query, which
# builds an automaton on every run (0.3 ms; a facet base is run once per recounted author).
MAX_OR_TERMS = 32


def valid_ids(ids: Iterable[int]) -> list[int]:
    # Index values are u64: anything else names no paper, tag or author.
    return sorted(pk for pk in map(int, ids) if 0 <= pk < 2**64)


def any_of(field_name: str, ids: Iterable[int], *, max_or_terms: int = MAX_OR_TERMS) -> Query:
    values = valid_ids(ids)
    if not values:
        return Query.empty_query()
    if len(values) > max_or_terms:
        return Query.term_set_query(index_schema(), field_name, values)
    terms = [Query.term_query(index_schema(), field_name, value) for value in values]
    if len(terms) == 1:
        return terms[0]
    return Query.boolean_query([(Occur.Should, term) for term in terms])


def unscored_filter(
    field_name: str, ids: Iterable[int], *, max_or_terms: int = MAX_OR_TERMS
) -> Query:
    # Scored, a term of a rare venue would add more to a paper's relevance than a common one.
    return Query.const_score_query(any_of(field_name, ids, max_or_terms=max_or_terms), 0.0)


def all_of(queries: list[Query]) -> Query:
    if not queries:
        return Query.all_query()
    if len(queries) == 1:
        return queries[0]
    return Query.boolean_query([(Occur.Must, q) for q in queries])


def hit_count(result: tantivy.SearchResult) -> int:
    """How many documents the search matched (every search here counts them)."""
    # tantivy.pyi leaves out SearchResult.count, which the extension module has.
    return result.count  # type: ignore[attr-defined]


def paper_id_of(document: tantivy.Document) -> int:
    pk = document.get_first(schema.ID)
    assert pk is not None  # every document is indexed with its paper's id
    return int(pk)
