"""Search, facet counts, snippets and similar papers over the catalogue's Tantivy index.

A library over an open `tantivy.Searcher`: it never touches the database (the caller hands it
whatever the database must say, such as the ids of the user's own papers) and never opens or
updates an index. User text reaches it only as a `ParsedQuery`, a tree of plain words, which
is turned into Tantivy queries term by term; Tantivy's own query syntax is never used.

Over 600 lines: query building, paging, facets and similar papers share private helpers; issue 29
splits it ("engine.py is 1,463 lines").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cache, cached_property, wraps
from typing import TypeVar

import tantivy
from django.utils.safestring import SafeString, mark_safe

from papers.latex import math_spans, render_latex_inline_marked, without_latex_commands
from papers.search import schema
from papers.search.query import (
    FIELD_NAMES,
    MAX_PHRASE_WORDS,
    MIN_PREFIX_CHARS,
    STOP_WORDS,
    Clause,
    ParsedQuery,
)

Occur = tantivy.Occur
T = TypeVar("T")
Query = tantivy.Query

# BM25 weight of a hit by field: a word in the title counts three times one in the abstract.
FIELD_BOOSTS = {schema.TITLE: 3.0, schema.AUTHORS: 2.0, schema.ABSTRACT: 1.0}
SORTS = ("relevance", "newest", "title", "rating")
# Tantivy allocates for offset + limit hits up front: both are bounded, whatever the caller says.
MAX_PAGE_SIZE = 1000
AUTHOR_FACET_SIZE = 20
# The author facet's first aggregation returns this many authors beyond the top N, and each
# segment reports its AUTHOR_SEGMENT_SIZE most frequent ones (see _top_authors).
AUTHOR_FACET_SLACK = 200
AUTHOR_SEGMENT_SIZE = 2000
# At most this many authors are counted one by one to make the first aggregation exact.
MAX_AUTHOR_RECOUNTS = 100
# No facet has more values than this; asking for "all" as a number keeps counts exact.
ALL_BUCKETS = 2**31 - 1
SNIPPET_CHARS = 200
SIMILAR_AUTHORS = 20  # a paper's first authors considered for "shares N authors"
SIMILAR_TERMS = 25  # words of the paper's title and abstract "more like this" looks at
MIN_TOPIC_TERM_CHARS = 3  # shorter terms ("ai", "x") say little about a topic
SIMILAR_REASON_TERMS = 3
# A shared author adds this share of the best topical score, so co-authored papers on the same
# topic rise to the top while an unrelated paper of a shared author does not swamp the list.
SHARED_AUTHOR_WEIGHT = 0.5


# --- Inputs and outputs -------------------------------------------------------------------


@dataclass(frozen=True)
class BrowseQuery:
    """One listing request: the search, the selected facet values, the sort and the page.

    Values within a facet are OR-ed, facets are AND-ed. `mine_ids` is the "mine" facet's
    selection resolved to paper ids by the caller (None: not selected); `mine_sets` are the
    named id sets the "mine" facet counts (e.g. {"lists": ..., "notes": ...}).
    """

    parsed: ParsedQuery | None = None  # None: no search; (): nothing searchable, no results
    venue_ids: frozenset[int] = frozenset()
    track_ids: frozenset[int] = frozenset()
    lab_ids: frozenset[int] = frozenset()
    keyword_ids: frozenset[int] = frozenset()
    # Keywords the caller wants counted whatever their rank (a "find a keyword" box's matches).
    keyword_candidates: frozenset[int] = frozenset()
    area_ids: frozenset[int] = frozenset()
    decision_ids: frozenset[int] = frozenset()
    author_ids: frozenset[int] = frozenset()
    mine_ids: frozenset[int] | None = None
    mine_sets: Mapping[str, frozenset[int]] = field(default_factory=dict)
    sort: str = "relevance"  # falls back to "newest" without a search
    offset: int = 0
    limit: int = 25


@dataclass(frozen=True)
class Facets:
    """Disjunctive counts: each facet over the matches of every other facet but its own.

    Venue, track, decision, lab and area facets hold every value with a match; `keyword` the top
    TOP_KEYWORDS keywords and `author` the top authors, by count (ties by id).
    Every selected value is there too, with 0 if nothing matches it. `mine` has one count per
    `BrowseQuery.mine_sets` name. Dicts are ordered by count, highest first, then by id, with
    selected values outside the top authors last.
    """

    venue: dict[int, int]
    track: dict[int, int]
    lab: dict[int, int]
    keyword: dict[int, int]
    area: dict[int, int]
    decision: dict[int, int]
    author: dict[int, int]
    mine: dict[str, int]


@dataclass(frozen=True)
class Results:
    ids: list[int]
    total: int
    facets: Facets


@dataclass(frozen=True)
class Similar:
    id: int
    shared_authors: int
    shared_terms: tuple[str, ...]

    @property
    def reasons(self) -> list[str]:
        reasons = []
        if self.shared_authors:
            plural = "s" if self.shared_authors > 1 else ""
            reasons.append(f"shares {self.shared_authors} author{plural}")
        if self.shared_terms:
            reasons.append("shares: " + ", ".join(self.shared_terms))
        return reasons


# --- Analysis: the query's words as the index saw the documents' words ----------------------


@cache
def _schema() -> tantivy.Schema:
    # Queries only need field names and types, identical in every index of this version.
    return schema.build_schema()


@cache
def _splitter() -> tantivy.TextAnalyzer:
    # The text analyzer's tokenizer alone: where the index puts token boundaries (and positions).
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).build()


@cache
def _stemmer() -> tantivy.TextAnalyzer:
    # A token of _splitter turned into the term the index holds for it.
    return schema.text_analyzer()


@cache
def _folder() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .build()
    )


def _folded(word: str) -> str:
    """The word lowercased and folded as the index folds it, unstemmed ("Schrö" -> "schro")."""
    if word.isascii():
        return word.lower()
    tokens = _folder().analyze(word)
    return tokens[0] if tokens else ""


def _terms(text: str, *, skip_stop_words: bool = False) -> list[tuple[int, str]]:
    """(position, indexed term) of each token of `text`, as the index analyses a field.

    A token too long to be indexed leaves its position empty, as it does in the index, so a
    phrase around it still lines up; so does a stop word when `skip_stop_words` is set.
    """
    stem = _stemmer().analyze
    return [
        (position, term)
        for position, token in enumerate(_splitter().analyze(text))
        if not (skip_stop_words and token.lower() in STOP_WORDS)
        for term in stem(token)
    ]


# --- Query building -----------------------------------------------------------------------


def _field_query(field_name: str, terms: list[tuple[int, str]]) -> Query:
    if len(terms) == 1:
        return Query.term_query(_schema(), field_name, terms[0][1])
    first = terms[0][0]
    return Query.phrase_query(_schema(), field_name, [(p - first, t) for p, t in terms])


# Greek letters by the names LaTeX gives them: a title's "$\\alpha$TC-VAE" is indexed as
# "alpha tc vae", and pages show it as "αTC-VAE", which is what a reader types.
_GREEK_NAMES = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "ο": "omicron", "π": "pi", "ϖ": "pi",
    "ρ": "rho", "ϱ": "rho", "σ": "sigma", "ς": "sigma", "τ": "tau", "υ": "upsilon",
    "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
}  # fmt: skip
_GREEK_SPELLED = str.maketrans({letter: f" {name} " for letter, name in _GREEK_NAMES.items()})


def _clause_query(clause: Clause) -> Query | None:
    """The clause's query; with Greek letters in it, either as typed or as LaTeX spells them
    ("αTC-VAE" also finds "$\\alpha$TC-VAE", "π2vec" "$\\pi$2vec")."""
    typed = _words_query(clause)
    spelled = _greek_spelled(clause)
    if spelled is None:
        return typed
    either = [(Occur.Should, q) for q in (typed, _words_query(spelled)) if q is not None]
    return Query.boolean_query(either) if either else None


def _greek_spelled(clause: Clause) -> Clause | None:
    """The clause with its Greek letters spelled as LaTeX names them; None without any."""
    text = " ".join(clause.words)
    spelled = text.translate(_GREEK_SPELLED)
    if spelled == text:
        return None
    return replace(clause, words=tuple(spelled.split())[:MAX_PHRASE_WORDS])


def _words_query(clause: Clause) -> Query | None:
    """A word or phrase in any text field, weighted by field; None if nothing is indexable.

    A phrase's stop words only hold their place, as in PostgreSQL's phrase search: "learn to
    grasp" matches "learn for grasp" too. Matching them would read the positions of "the" or
    "of" in nearly every abstract, for every phrase searched. A hyphenated compound's count
    ("in-context"): without "in" it would be "context", anywhere.
    """
    terms = _terms(" ".join(clause.words), skip_stop_words=not clause.exact)
    if not terms:
        return None
    typed = _typed_prefix(clause, terms)
    return Query.boolean_query(
        [
            (Occur.Should, Query.boost_query(query, boost))
            for name, boost in FIELD_BOOSTS.items()
            for query in (
                [_field_query(name, terms)]
                if typed is None
                else _prefix_field_queries(name, terms[:-1], terms[-1][0], typed)
            )
        ]
    )


# A typed word that has gone past its stem ("learni", "performanc") is not a prefix of the
# indexed term ("learn", "perform"): the typed word's openings this many characters shorter
# (and no shorter than MIN_STEM_CHARS) are looked up as whole terms too. Measured on the seed
# abstracts' words, every opening of 2+ letters of every word finds its stem for 99%.
STEM_LOOKBACK = 4
MIN_STEM_CHARS = 3


def _typed_prefix(clause: Clause, terms: list[tuple[int, str]]) -> str | None:
    """The clause's last word as the index spells its terms (lowercase, folded, unstemmed),
    when it matches as a prefix: the word is still being typed and its last token is
    indexable."""
    if not clause.prefix:
        return None
    tokens = _splitter().analyze(clause.words[-1])
    if len(tokens) != 1 or len(tokens[0].encode()) >= schema.MAX_TOKEN_BYTES:
        return None
    word = _folded(tokens[0])
    if len(word) < MIN_PREFIX_CHARS or not word.isalnum() or terms[-1][1] != _stem(word):
        return None
    return word


def _stem(word: str) -> str:
    stemmed = _stemmer().analyze(word)
    return stemmed[0] if stemmed else ""


def _prefix_field_queries(
    field_name: str, before: list[tuple[int, str]], position: int, word: str
) -> list[Query]:
    """Ways `before` followed by a word beginning with `word` (at `position`) match a field.

    The prefix is a regex of the word's letters and digits only (nothing in it is syntax),
    expanded against the field's terms; a phrase uses Tantivy's phrase prefix query, whose
    expansion is capped (50 terms). The stem of the word and its shorter openings are matched
    as whole terms (see STEM_LOOKBACK).
    """
    whole_terms = dict.fromkeys(
        [_stem(word)]
        + [word[:n] for n in range(max(MIN_STEM_CHARS, len(word) - STEM_LOOKBACK), len(word))]
    )
    queries = [_field_query(field_name, [*before, (position, term)]) for term in whole_terms]
    if before:
        first = before[0][0]
        words: list[str | tuple[int, str]] = [(p - first, t) for p, t in before]
        words.append((position - first, word))
        queries.append(Query.phrase_prefix_query(_schema(), field_name, words))
    else:
        queries.append(Query.regex_query(_schema(), field_name, re.escape(word) + ".*"))
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
            query = _clause_query(clause)
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


def _wanted_words_query(
    parsed: ParsedQuery, searcher: tantivy.Searcher, documents: dict[int, tantivy.Document]
) -> Query | None:
    """Every wanted (not excluded) term once, in the abstract: what a snippet highlights.

    A word matched as a prefix ("diffu" typed, "diff*") adds the terms it matched in the
    abstracts of `documents` (the snippet generator highlights terms only, and a prefix is no
    term of the index: its stem "diffu" would highlight nothing)."""
    terms = dict.fromkeys(
        term
        for group in parsed
        for clause in group
        if not clause.negated
        for _, term in _terms(" ".join(clause.words), skip_stop_words=True)
    )
    shown = _any_of(schema.ID, documents)
    for group in parsed:
        for clause in group:
            if clause.negated or not clause.prefix:
                continue
            found = _terms(" ".join(clause.words), skip_stop_words=True)
            typed = _typed_prefix(clause, found) if found else None
            if typed is None:
                continue
            completions = searcher.terms_with_prefix(
                schema.ABSTRACT, typed, filter_query=shown, limit=MAX_HIGHLIGHTED_COMPLETIONS
            )
            terms.update(dict.fromkeys(term for term, count in completions if count))
            # A word typed past its stem ("learni") matched the stem ("learn"): see STEM_LOOKBACK.
            shortest = max(MIN_STEM_CHARS, len(typed) - STEM_LOOKBACK)
            terms.update(dict.fromkeys(typed[:n] for n in range(shortest, len(typed))))
    if not terms:
        return None
    return Query.boolean_query(
        [(Occur.Should, Query.term_query(_schema(), schema.ABSTRACT, t)) for t in terms]
    )


# Up to this many values, "any of" is an OR of term queries; more make a term set query, which
# builds an automaton on every run (0.3 ms; a facet base is run once per recounted author).
MAX_OR_TERMS = 32


def _valid_ids(ids: Iterable[int]) -> list[int]:
    # Index values are u64: anything else names no paper, tag or author.
    return sorted(pk for pk in map(int, ids) if 0 <= pk < 2**64)


def _any_of(field_name: str, ids: Iterable[int]) -> Query:
    values = _valid_ids(ids)
    if not values:
        return Query.empty_query()
    if len(values) > MAX_OR_TERMS:
        return Query.term_set_query(_schema(), field_name, values)
    terms = [Query.term_query(_schema(), field_name, value) for value in values]
    if len(terms) == 1:
        return terms[0]
    return Query.boolean_query([(Occur.Should, term) for term in terms])


def _filter(field_name: str, ids: Iterable[int]) -> Query:
    # Scored, a term of a rare venue would add more to a paper's relevance than a common one.
    return Query.const_score_query(_any_of(field_name, ids), 0.0)


def _all_of(queries: list[Query]) -> Query:
    if not queries:
        return Query.all_query()
    if len(queries) == 1:
        return queries[0]
    return Query.boolean_query([(Occur.Must, q) for q in queries])


# --- Spelling -----------------------------------------------------------------------------

# "Did you mean" for a search that found nothing: each word the index does not hold is replaced
# by the nearest word that it does. Shorter words are left alone (too many near neighbours).
MIN_SPELLING_CHARS = 4
# A misspelt word's candidates are the indexed terms beginning with its first letters.
SPELLING_PREFIX_CHARS = 2
# Papers read for how a chosen term is written in full (the index holds stems).
SPELLING_SAMPLE = 10
# Words of a query looked at for a correction: the rest stay as typed.
MAX_SPELLING_WORDS = 8
_SPELLING_WORD = re.compile(r"(?<![\w-])[^\W\d_]+")


def spelling_suggestion(searcher: tantivy.Searcher, text: str) -> str | None:
    """`text` with its misspelt words corrected ("difusion modles" -> "diffusion models"), or
    None when it has none or nothing close is indexed.

    A word is misspelt when its stem is in no text field. Its candidates are the terms of the
    title, author and abstract dictionaries that begin with its first two letters and lie
    within one or two edits of that stem (the dictionaries are read, not the papers); the
    nearest wins, and the one in more papers among equals ("model" over "mode"), written as a
    few papers holding it write it and capitalised as typed. Everything else in `text` (quotes,
    minus signs, `or`) stays as typed; an excluded word is not changed.
    """
    corrected, changed, position = [], False, 0
    for index, match in enumerate(_SPELLING_WORD.finditer(text)):
        word = match.group()
        # A query of a hundred unknown words would read the dictionaries a hundred times.
        better = (
            _nearest_indexed_word(searcher, word.lower())
            if index < MAX_SPELLING_WORDS and not _syntax_or_excluded(text, match)
            else None
        )
        if better is not None and word[:1].isupper():
            better = better.upper() if word.isupper() else better.capitalize()  # as typed
        corrected += [text[position : match.start()], better or word]
        changed = changed or better is not None
        position = match.end()
    corrected.append(text[position:])
    return "".join(corrected) if changed else None


def _syntax_or_excluded(text: str, match: re.Match[str]) -> bool:
    """Whether the word is read as syntax by the parser (a field name before a colon, a
    prefix before a star) or excluded after NOT: left as typed, as a word after a minus is."""
    after = text[match.end() : match.end() + 1]
    if after == "*" or (after == ":" and match.group().casefold() in FIELD_NAMES):
        return True
    return text[: match.start()].rsplit(None, 1)[-1:] == ["NOT"]


def _nearest_indexed_word(searcher: tantivy.Searcher, word: str) -> str | None:
    if len(word) < MIN_SPELLING_CHARS or word in STOP_WORDS or word == "or":
        return None
    stem = _stem(word)
    if len(stem) < SPELLING_PREFIX_CHARS or any(
        searcher.doc_freq(name, stem) for name in FIELD_BOOSTS
    ):
        return None  # a word the index holds (or too short to correct)
    distance = 1 if len(stem) <= 5 else 2
    # Indexed terms sharing the first letters (a typo rarely starts a word), within reach.
    papers_with: dict[str, int] = {}
    for name in FIELD_BOOSTS:
        for term, count in searcher.terms_with_prefix(name, stem[:SPELLING_PREFIX_CHARS]):
            if abs(len(term) - len(stem)) <= distance and _edits(term, stem) <= distance:
                papers_with[term] = papers_with.get(term, 0) + count
    if not papers_with:
        return None
    best = min(papers_with, key=lambda term: (_edits(term, stem), -papers_with[term], term))
    # The index holds stems ("diffus"): the word as papers write it is read from a few of them.
    holding = Query.boolean_query(
        [(Occur.Should, Query.term_query(_schema(), name, best)) for name in FIELD_BOOSTS]
    )
    written: dict[str, int] = {}
    for _, address in searcher.search(holding, SPELLING_SAMPLE).hits:
        document = searcher.doc(address)
        for name in FIELD_BOOSTS:
            for value in document.get_all(name):
                for token in _splitter().analyze(str(value)):
                    token = token.lower()
                    # Stemming every word of ten abstracts took 90 ms at 100,000 papers: only
                    # words starting as the stem does can stem to it.
                    if (
                        token.isalpha()
                        and _folded(token).startswith(best[:SPELLING_PREFIX_CHARS])
                        and _stem(token) == best
                    ):
                        written[token] = written.get(token, 0) + 1
    if not written:
        return None
    return min(written, key=lambda w: (_edits(w, word), -written[w], w))


def _edits(a: str, b: str) -> int:
    """Edit distance with a swap of neighbours counting one ("modles" is one from "models")."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


# --- Search and facets --------------------------------------------------------------------

# The value that stands for "no value" in the facets that have a "not given" bucket: ids are
# never 0, so it cannot be a tag's. Selecting it keeps the papers without any value there.
NOT_GIVEN = 0
NOT_GIVEN_FACETS = frozenset({"venue", "track", "decision"})

# Facet name -> (index field, BrowseQuery attribute with its selection).
_FACETS = {
    "venue": (schema.VENUE_IDS, "venue_ids"),
    "track": (schema.TRACK_IDS, "track_ids"),
    "lab": (schema.LAB_IDS, "lab_ids"),
    "keyword": (schema.KEYWORD_IDS, "keyword_ids"),
    "area": (schema.AREA_IDS, "area_ids"),
    "decision": (schema.DECISION_IDS, "decision_ids"),
    "author": (schema.AUTHOR_IDS, "author_ids"),
}


def search(
    searcher: tantivy.Searcher, query: BrowseQuery, *, author_facet_size: int = AUTHOR_FACET_SIZE
) -> Results:
    """The page of paper ids, the number of matches and every facet's counts."""
    matcher = _Matcher.of(query)
    if matcher is None:  # a search with nothing that can match
        return Results([], 0, _no_facets(query))
    ids, total = _page(searcher, matcher.all() or Query.all_query(), query, scored=matcher.scored)
    return Results(ids, total, _facets(searcher, query, matcher.all, total, author_facet_size))


def page_ids(searcher: tantivy.Searcher, query: BrowseQuery) -> tuple[list[int], int]:
    """The page of paper ids and the number of matches, without counting facets: for looking
    up a result's neighbours, where the counts would be wasted."""
    matcher = _Matcher.of(query)
    if matcher is None:
        return [], 0
    return _page(searcher, matcher.all() or Query.all_query(), query, scored=matcher.scored)


@dataclass(frozen=True)
class _Matcher:
    """A listing's search and its selected facets as queries."""

    text: Query | None
    filters: dict[str, Query]

    @classmethod
    def of(cls, query: BrowseQuery) -> _Matcher | None:
        """None when the search has nothing that can match."""
        text = None
        if query.parsed is not None:
            text = text_query(query.parsed)
            if text is None:
                return None
        filters = {
            name: _facet_filter(name, field_name, getattr(query, attribute))
            for name, (field_name, attribute) in _FACETS.items()
            if getattr(query, attribute)
        }
        if query.mine_ids is not None:
            filters["mine"] = _filter(schema.ID, query.mine_ids)
        return cls(text, filters)

    @property
    def scored(self) -> bool:
        return self.text is not None

    def all(self, without: str | None = None) -> Query | None:
        """The search and every selected facet but `without`; None when that is everything."""
        wanted = [self.text] if self.text is not None else []
        wanted += [f for name, f in self.filters.items() if name != without]
        return _all_of(wanted) if wanted else None


def all_ids(searcher: tantivy.Searcher, query: BrowseQuery) -> list[int]:
    """Every matching paper id in the listing's order, whatever the query's page, and no facet
    counts: what an export of the listing writes. Tantivy holds one hit per match (a few MB
    for the whole catalogue) instead of a page's."""
    matcher = _Matcher.of(query)
    everything = searcher.num_docs
    if matcher is None or not everything:
        return []
    matches = matcher.all() or Query.all_query()
    sort = _effective_sort(query.sort, scored=matcher.scored)
    if sort in _BY_COARSE_KEY_AND_ID:
        return _ids_by_coarse_key(searcher, matches, _BY_COARSE_KEY_AND_ID[sort])
    whole = replace(query, offset=0, limit=everything)
    return _page(searcher, matches, whole, scored=matcher.scored, max_limit=everything)[0]


def _ids_by_coarse_key(searcher: tantivy.Searcher, matches: Query, keys: _SortKeys) -> list[int]:
    """Every match in the exact key's order, when that key is the coarse key then the id (the
    newest and rating orders): sorted here by (coarse value, id) instead of by the text key.
    Tantivy makes a string of every text key it sorts by: 2.4 s for 100,000 papers, where
    the u64 key and the ids take a few hundredths."""
    hits = searcher.search(
        matches, searcher.num_docs, count=False, order_by_field=keys.coarse, order=keys.order
    ).hits
    ids = searcher.fast_field_values(schema.ID, [address for _, address in hits])
    # Paper ids are an integer field that every document has.
    keyed = sorted(
        ((int(value), pk) for (value, _), pk in zip(hits, ids, strict=True) if isinstance(pk, int)),
        reverse=keys.order == tantivy.Order.Desc,
    )
    return [pk for _, pk in keyed]


def match_count(searcher: tantivy.Searcher, query: BrowseQuery) -> int:
    """How many papers match, and nothing else: what an export checks against its limit
    before it reads any id (all_ids of the whole catalogue takes a second or two)."""
    matcher = _Matcher.of(query)
    if matcher is None or not searcher.num_docs:
        return 0
    return _total(searcher.search(matcher.all() or Query.all_query(), limit=1, count=True))


def _facet_filter(name: str, field_name: str, ids: frozenset[int]) -> Query:
    """Papers with any of the selected values; with NOT_GIVEN, also those with no value."""
    if name not in NOT_GIVEN_FACETS or NOT_GIVEN not in ids:
        return _filter(field_name, ids)
    without_value = Query.boolean_query(
        [(Occur.Must, Query.all_query()), (Occur.MustNot, Query.exists_query(field_name))]
    )
    either = [(Occur.Should, without_value)]
    if ids - {NOT_GIVEN}:
        either.append((Occur.Should, _any_of(field_name, ids - {NOT_GIVEN})))
    return Query.const_score_query(Query.boolean_query(either), 0.0)


def _total(result: tantivy.SearchResult) -> int:
    """How many documents the search matched (every search here counts them)."""
    # tantivy.pyi leaves out SearchResult.count, which the extension module has.
    return result.count  # type: ignore[attr-defined]


def _paper_id(document: tantivy.Document) -> int:
    pk = document.get_first(schema.ID)
    assert pk is not None  # every document is indexed with its paper's id
    return int(pk)


def _page(
    searcher: tantivy.Searcher,
    matches: Query,
    query: BrowseQuery,
    *,
    scored: bool,
    max_limit: int = MAX_PAGE_SIZE,
) -> tuple[list[int], int]:
    # Tantivy refuses a limit of 0 (the extra hit is cut below); past the last paper nothing
    # is found, whatever the offset.
    limit = min(max(1, query.limit), max_limit)
    offset = max(0, query.offset)
    if offset >= searcher.num_docs:
        return [], _total(searcher.search(matches, 1))
    sort = _effective_sort(query.sort, scored=scored)
    if sort == "relevance":
        result = searcher.search(matches, limit, offset=offset)
        hits, total = result.hits, _total(result)
    elif sort == "newest":
        hits, total = _sorted_hits(searcher, matches, _NEWEST, offset, limit)
    elif sort == "rating":
        hits, total = _sorted_hits(searcher, matches, _BY_RATING, offset, limit)
    else:
        hits, total = _sorted_hits(searcher, matches, _BY_TITLE, offset, limit)
    addresses = [address for _, address in hits][: max(0, query.limit)]
    ids = searcher.fast_field_values(schema.ID, addresses) if addresses else []
    # Paper ids are an integer field that every document has.
    return [pk for pk in ids if isinstance(pk, int)], total


@dataclass(frozen=True)
class _SortKeys:
    exact: str  # a fast text field, one value per paper: the order itself
    coarse: str  # a fast u64 field in the same order, with ties
    order: tantivy.Order


_NEWEST = _SortKeys(schema.NEWEST_ORDER, schema.CREATED, tantivy.Order.Desc)
_BY_TITLE = _SortKeys(schema.TITLE_ORDER, schema.TITLE_PREFIX, tantivy.Order.Asc)
_BY_RATING = _SortKeys(schema.RATING_ORDER, schema.RATING, tantivy.Order.Desc)
# The orders whose exact key is the coarse key followed by the paper id (schema's sort keys).
_BY_COARSE_KEY_AND_ID = {"newest": _NEWEST, "rating": _BY_RATING}


def _effective_sort(sort: str, *, scored: bool) -> str:
    """The order a listing is in: relevance only with a search to score, newest otherwise."""
    sort = sort if sort in SORTS else "relevance"
    return "newest" if sort == "relevance" and not scored else sort


def _sorted_hits(searcher, matches: Query, keys: _SortKeys, offset: int, limit: int):
    """A page in the exact key's order, found by the coarse key first.

    Tantivy turns the exact (text) key of every hit it keeps, skipped ones included, into a
    string, a cost that grows with the page number, so the page is located by the coarse
    u64 key, which is cheap to skip by: its values at the page's first and last positions
    bound a window holding the page and any ties around it; the hits before the window are
    counted, and the exact key orders the window alone.
    """
    located = searcher.search(
        matches, limit, order_by_field=keys.coarse, offset=offset, order=keys.order
    )
    if not located.hits:
        return [], _total(located)
    first, last = int(located.hits[0][0]), int(located.hits[-1][0])
    window = [matches, _coarse_range(keys, last, "through")]
    skipped = 0
    if offset:
        skipped = _total(
            searcher.search(_all_of([matches, _coarse_range(keys, first, "before")]), 1)
        )
        window.append(_coarse_range(keys, first, "from"))
    page = searcher.search(
        _all_of(window),
        limit,
        count=False,
        order_by_field=keys.exact,
        offset=offset - skipped,
        order=keys.order,
    )
    return page.hits, _total(located)


def _coarse_range(keys: _SortKeys, value: int, part: str) -> Query:
    """The hits whose coarse key comes "before" `value` in the sort order, or "from" it on,
    or "through" it (up to and including it)."""
    ascending = keys.order == tantivy.Order.Asc
    upper = (part != "from") == ascending  # "before"/"through" lie below when ascending
    include = part != "before"
    field = (_schema(), keys.coarse, tantivy.FieldType.Unsigned)
    if upper:
        return Query.range_query(*field, upper_bound=value, include_upper=include)
    return Query.range_query(*field, lower_bound=value, include_lower=include)


def _facets(searcher, query: BrowseQuery, matches, total: int, author_facet_size: int) -> Facets:
    """One aggregation request per distinct base: facets with nothing selected share one."""
    groups: dict[str | None, list[str]] = {}
    for name, (_, attribute) in _FACETS.items():
        groups.setdefault(name if getattr(query, attribute) else None, []).append(name)
    counts: dict[str, dict[int, int]] = {}
    for without, names in groups.items():
        narrowed = matches(without)
        base, whole = narrowed or Query.all_query(), narrowed is None
        if "author" in names:
            # Cheapest first: over nearly everything, the papers not matched; over many
            # matches, the popular authors; else (below) every author of the matches.
            matched = total if without is None else _total(searcher.search(base, 1))
            found = _broad_top_authors(
                searcher, None if whole else base, matched, author_facet_size, query.author_ids
            )
            if found is None and not whole:
                found = _popular_top_authors(
                    searcher, base, matched, author_facet_size, query.author_ids
                )
            if found is not None:
                counts["author"] = found
                names = [name for name in names if name != "author"]
                if not names:
                    continue
        request = {}
        for name in names:
            if name == "keyword":  # every segment reports every keyword: exact, cut after
                request[name] = _terms_request(schema.KEYWORD_IDS, exact_top=TOP_KEYWORDS + 1)
            else:
                top = author_facet_size + AUTHOR_FACET_SLACK if name == "author" else None
                request[name] = _terms_request(_FACETS[name][0], size=top)
                if name in NOT_GIVEN_FACETS:  # papers without a value, counted as NOT_GIVEN
                    request[name]["terms"]["missing"] = NOT_GIVEN
        counted = query.keyword_ids | query.keyword_candidates
        if "keyword" in names:  # the selected and wanted keywords are counted in the same pass
            request |= _value_filters("keyword", schema.KEYWORD_IDS, counted)
        if "author" in names:  # the selected authors are counted in the same pass
            request |= _author_filters(query.author_ids)
        answer = searcher.aggregate(base, request)
        for name in names:
            if name == "keyword":
                found = _top_keywords(searcher, base, answer, counted)
            elif name == "author":
                selected = _filtered_counts(answer, query.author_ids)
                found = _top_authors(
                    searcher, base, answer[name], author_facet_size, selected, whole=whole
                )
            else:
                found = _ordered({int(b["key"]): b["doc_count"] for b in answer[name]["buckets"]})
                # A selected value without matches among the other facets shows, with 0.
                selected = getattr(query, _FACETS[name][1])
                found |= {pk: 0 for pk in sorted(selected) if pk not in found}
            counts[name] = found
    without_mine = matches("mine") or Query.all_query()
    mine = {name: _count(searcher, without_mine, ids) for name, ids in query.mine_sets.items()}
    return Facets(**counts, mine=mine)


# The keyword facet shows this many keywords (plus the selected ones); a catalogue has
# thousands, and every one listed costs a bucket turned into Python.
TOP_KEYWORDS = 30


def _top_keywords(searcher, base: Query, answer: dict, selected: Iterable[int]) -> dict[int, int]:
    """The TOP_KEYWORDS keywords by count (ties by id), then the selected (and other
    wanted) ones: exact.

    The aggregation listed one keyword more than shown: if that one ties the last shown, the
    cut may have left out others of that count with lower ids, so those are all counted.
    """
    found = _ordered({int(b["key"]): b["doc_count"] for b in answer["keyword"]["buckets"]})
    found = _with_ties_at_the_cut(searcher, base, schema.KEYWORD_IDS, found, TOP_KEYWORDS)
    chosen = dict(list(found.items())[:TOP_KEYWORDS])
    for pk in _valid_ids(selected):
        if pk not in chosen:
            chosen[pk] = answer[f"keyword_{pk}"]["doc_count"]
    return chosen


def _with_ties_at_the_cut(
    searcher, base: Query, field_name: str, found: dict[int, int], top: int
) -> dict[int, int]:
    """`found`: an exact terms aggregation cut at top + 1 values, ordered. When the last one
    ties the top-th, the cut may have left out others of that count with lower ids: every
    value of that count is added, in order."""
    counts = list(found.values())
    if len(counts) <= top or counts[top] != counts[top - 1]:
        return found
    request = {"tied": _terms_request(field_name, min_count=counts[top])}
    tied = searcher.aggregate(base, request)["tied"]["buckets"]
    return _ordered(found | {int(b["key"]): b["doc_count"] for b in tied})


def _value_filters(name: str, field_name: str, ids: Iterable[int]) -> dict:
    """Filter aggregations counting each value's matches exactly, all in one pass."""
    return {f"{name}_{pk}": {"filter": f"{field_name}:{pk}"} for pk in _valid_ids(ids)}


def _terms_request(
    field_name: str, *, size: int | None = None, min_count: int = 1, exact_top: int | None = None
) -> dict:
    """A terms aggregation, by count. Without `size`: every value, each count exact.

    Tantivy cuts each segment's list at segment_size before merging, which makes merged counts
    estimates; reporting every value from every segment keeps them exact. For the top authors
    that full list (every author of every match) is most of a listing's time: they cut at
    AUTHOR_SEGMENT_SIZE, and _top_authors makes the result exact.
    """
    request = {"field": field_name, "size": ALL_BUCKETS, "segment_size": ALL_BUCKETS}
    if exact_top is not None:  # every value counted in every segment; only the list is cut
        request["size"] = exact_top
    if size is not None:
        request |= {"size": size, "segment_size": max(size, AUTHOR_SEGMENT_SIZE)}
        request["show_term_doc_count_error"] = True
    if min_count > 1:
        request["min_doc_count"] = min_count
    return {"terms": request}


def _author_filters(author_ids: Iterable[int]) -> dict:
    """Filter aggregations counting each author's matches exactly, all in one pass.

    Tantivy parses a filter's query text; here it is only a field name and a number.
    """
    return _value_filters("author", schema.AUTHOR_IDS, author_ids)


def _filtered_counts(answer: dict, author_ids: Iterable[int]) -> dict[int, int]:
    return {pk: answer[f"author_{pk}"]["doc_count"] for pk in _valid_ids(author_ids)}


def _top_authors(
    searcher, base: Query, answer: dict, top: int, selected: dict[int, int], *, whole: bool
) -> dict[int, int]:
    """The `top` authors by exact count, ties by id, then the selected authors' counts.

    `answer` is a cut aggregation: its counts are lower bounds, short of the true ones by at
    most its doc_count_error_upper_bound (the sum of each segment's largest cut-off count),
    and an author it leaves out has at most that error plus the last count it returned. So
    the authors that could reach the top are recounted exactly, and if an author left out
    could still tie the top-th count, one full (exact) aggregation of the authors with at
    least that count settles it. `whole`: the base is the whole catalogue.
    """
    if top < 1:
        return selected
    buckets = answer["buckets"]
    reported = {int(b["key"]): b["doc_count"] for b in buckets}
    error = answer.get("doc_count_error_upper_bound")
    if error is None:  # not reported: trust nothing
        return _exact_top_authors(searcher, base, top, selected, min_count=1)
    lowest = _nth_largest(reported, top)
    # One segment's counts are whole; only authors it cut off are unknown (up to `error`).
    if error > 0 and searcher.num_segments > 1:
        contenders = [pk for pk, n in reported.items() if n + error >= lowest]
        if len(contenders) > MAX_AUTHOR_RECOUNTS:
            return _exact_top_authors(searcher, base, top, selected, min_count=lowest)
        exact = _recount(searcher, base, contenders, whole=whole)
    else:
        exact = reported
    chosen = dict(list(_ordered(exact).items())[:top])
    threshold = min(chosen.values(), default=0) if len(chosen) == top else 0
    left_out = error + (buckets[-1]["doc_count"] if len(buckets) >= top + AUTHOR_FACET_SLACK else 0)
    if left_out and left_out >= threshold:
        # An author left out might reach the top-th count: count all who can, exactly.
        return _exact_top_authors(searcher, base, top, selected, min_count=threshold)
    return chosen | {pk: n for pk, n in selected.items() if pk not in chosen}


def _recount(searcher, base: Query, author_ids: list[int], *, whole: bool) -> dict[int, int]:
    """Exact counts of these authors' papers among the base's.

    Over the whole catalogue an author's count is their posting list's length; a narrower base
    is one pass with a filter aggregation per author, which is cheaper than intersecting the
    base with each author in turn.
    """
    if whole:
        return {
            pk: _total(searcher.search(Query.term_query(_schema(), schema.AUTHOR_IDS, pk), 1))
            for pk in author_ids
        }
    return _filtered_counts(searcher.aggregate(base, _author_filters(author_ids)), author_ids)


def _nth_largest(counts: dict[int, int], n: int) -> int:
    return sorted(counts.values(), reverse=True)[n - 1] if len(counts) >= n else 0


def _exact_top_authors(searcher, base: Query, top: int, selected, *, min_count: int):
    """Every author with at least `min_count` matches, counted exactly; the top and selected."""
    request = {"author": _terms_request(schema.AUTHOR_IDS, min_count=max(1, min_count))}
    buckets = searcher.aggregate(base, request)["author"]["buckets"]
    chosen = dict(list(_ordered({int(b["key"]): b["doc_count"] for b in buckets}).items())[:top])
    return chosen | {pk: n for pk, n in selected.items() if pk not in chosen}


# --- The author facet over broad matches --------------------------------------------------
#
# Counting authors is most of a listing's work: each match holds several author ids (15 ms
# over 100,000 papers, ten times that over 1,000,000). But an author has at most as many
# matches as papers, so the catalogue's most frequent authors, counted once per searcher, bound
# every narrower count. Over broad matches the top authors are then found by counting only the
# most frequent authors of the catalogue, in that order, until no author left could reach the
# top; what that does not settle in a few rounds, the full aggregation (_top_authors) does.

# Authors kept per searcher, by papers in the catalogue.
CATALOGUE_AUTHORS = 2000
# Matches at least this share of the catalogue are "broad". Their authors' counts are the
# catalogue's minus those of the papers not matched, which are fewer. Below it, counting the
# top authors among those few takes more rounds than one aggregation over the matches costs.
BROAD_SHARE = 0.8
# The first round counts the top N plus this many authors; each next round four times as many.
BROAD_FIRST_EXTRA = 30
BROAD_ROUNDS = 3


@dataclass(frozen=True)
class CatalogueAuthors:
    """The catalogue's most frequent authors, as (author id, papers) ordered by papers then id:
    every author with more than `floor` papers, and no other."""

    ranked: list[tuple[int, int]]
    floor: int

    @cached_property
    def papers(self) -> dict[int, int]:
        """The same counts by author id, built once per searcher."""
        return dict(self.ranked)


def _once_per_searcher(compute: Callable[[tantivy.Searcher], T]) -> Callable[[tantivy.Searcher], T]:
    """`compute` run once per searcher (a searcher is one snapshot of the index; SearchIndex
    keeps one per state it loads), so a change to the catalogue is never answered with old
    statistics: the last searcher's answer is kept."""
    last: tuple[tantivy.Searcher, T] | None = None

    @wraps(compute)
    def cached(searcher: tantivy.Searcher) -> T:
        nonlocal last
        known = last
        if known is None or known[0] is not searcher:
            known = last = (searcher, compute(searcher))
        return known[1]

    return cached


@_once_per_searcher
def catalogue_authors(searcher: tantivy.Searcher) -> CatalogueAuthors:
    """Counted once per searcher (_once_per_searcher)."""
    # Every segment reports every author (segment_size), so the merged counts are exact; only
    # the list is cut, after the merge, at the top CATALOGUE_AUTHORS.
    request = {"author": _terms_request(schema.AUTHOR_IDS, exact_top=CATALOGUE_AUTHORS)}
    buckets = searcher.aggregate(Query.all_query(), request)["author"]["buckets"]
    counts = {int(b["key"]): b["doc_count"] for b in buckets}
    # A cut list may have left out some authors tied with its last count: keep only those above.
    floor = min(counts.values()) if len(counts) >= CATALOGUE_AUTHORS else 0
    ranked = [(pk, n) for pk, n in _ordered(counts).items() if n > floor]
    return CatalogueAuthors(ranked, floor)


def _broad_top_authors(
    searcher, base: Query | None, matched: int, top: int, selected: Iterable[int]
) -> dict[int, int] | None:
    """The author facet over `base` (None: the whole catalogue), which matches `matched`
    papers, as _top_authors gives it; None when the matches are not broad or the catalogue's
    top authors do not settle it."""
    if top < 1 or matched < BROAD_SHARE * searcher.num_docs:
        return None
    catalogue = catalogue_authors(searcher)
    ranked = catalogue.ranked
    selected = _valid_ids(selected)
    if base is None:
        if len(ranked) < top and catalogue.floor:
            return None
        chosen = dict(ranked[:top])
        wanted = [pk for pk in selected if pk not in chosen]
        return chosen | _catalogue_counts(searcher, catalogue, wanted)
    not_matched = Query.boolean_query([(Occur.Must, Query.all_query()), (Occur.MustNot, base)])
    counts: dict[int, int] = {}
    done, size = 0, top + BROAD_FIRST_EXTRA
    for _ in range(BROAD_ROUNDS):
        batch = dict(ranked[done : done + size])
        done += len(batch)
        wanted = [pk for pk in selected if pk not in counts and pk not in batch]
        counts |= _counts_among(searcher, not_matched, catalogue, batch, wanted)
        chosen = dict(list(_ordered({pk: n for pk, n in counts.items() if n}).items())[:top])
        if done == len(ranked) and not catalogue.floor:  # every author counted
            break
        # An author not counted yet has at most `bound` matches: fewer than the top's last.
        bound = ranked[done][1] if done < len(ranked) else catalogue.floor
        if len(chosen) == top and min(chosen.values()) > bound:
            break
        if done == len(ranked):
            return None
        size *= 4
    else:
        return None
    return chosen | {pk: counts[pk] for pk in selected if pk not in chosen}


# --- The author facet from the popular authors ----------------------------------------------
#
# The index also holds, on each paper, the ids of its authors among the catalogue's most
# prolific (schema.POPULAR_AUTHOR_IDS): about a third of the author ids. Over many matches
# the top authors are among them, and counting them alone is exact for them; the top is
# settled once its last count is above the most papers any other author has.


@dataclass(frozen=True)
class PopularAuthors:
    ids: frozenset[int]  # the authors in POPULAR_AUTHOR_IDS, each on every paper of theirs
    bound: int  # the most papers in the catalogue of any other author


def indexed_popular_authors(searcher: tantivy.Searcher) -> frozenset[int]:
    """The authors whose ids the index holds in POPULAR_AUTHOR_IDS: an update puts the ids of
    these, and only these, in the documents it adds (store.SearchIndex._apply)."""
    request = {"author": _terms_request(schema.POPULAR_AUTHOR_IDS)}
    buckets = searcher.aggregate(Query.all_query(), request)["author"]["buckets"]
    return frozenset(int(b["key"]) for b in buckets)


@_once_per_searcher
def popular_authors(searcher: tantivy.Searcher) -> PopularAuthors:
    """Counted once per searcher, as catalogue_authors is."""
    ids = indexed_popular_authors(searcher)
    catalogue = catalogue_authors(searcher)
    # The catalogue's ranked authors are every author with more than `floor` papers, most first.
    others = (n for pk, n in catalogue.ranked if pk not in ids)
    return PopularAuthors(ids, next(others, catalogue.floor))


def _popular_top_authors(
    searcher, base: Query, matched: int, top: int, selected: Iterable[int]
) -> dict[int, int] | None:
    """The author facet over `base` (`matched` papers) as _top_authors gives it, from the
    popular authors alone; None when that does not settle it (few matches: the full count is
    cheap then)."""
    popular = popular_authors(searcher)
    if top < 1 or len(popular.ids) < top or matched <= popular.bound:
        return None  # (no author can have more matches than the bound)
    selected = _valid_ids(selected)
    request = {"author": _terms_request(schema.POPULAR_AUTHOR_IDS, exact_top=top + 1)}
    answer = searcher.aggregate(base, request | _author_filters(selected))
    found = _ordered({int(b["key"]): b["doc_count"] for b in answer["author"]["buckets"]})
    counts = list(found.values())
    if len(counts) < top or counts[top - 1] <= popular.bound:
        return None  # another author may have as many matches as the top-th
    found = _with_ties_at_the_cut(searcher, base, schema.POPULAR_AUTHOR_IDS, found, top)
    chosen = dict(list(found.items())[:top])
    return chosen | {
        pk: n for pk, n in _filtered_counts(answer, selected).items() if pk not in chosen
    }


def _counts_among(
    searcher, not_matched: Query, catalogue: CatalogueAuthors, batch: dict[int, int], others
) -> dict[int, int]:
    """Matches of the batch's authors (given with their catalogue counts) and of `others`:
    their papers in the catalogue minus those among the papers not matched, in one pass."""
    everywhere = batch | _catalogue_counts(searcher, catalogue, others)
    outside = _filtered_counts(
        searcher.aggregate(not_matched, _author_filters(everywhere)), everywhere
    )
    return {pk: n - outside[pk] for pk, n in everywhere.items()}


def _catalogue_counts(searcher, catalogue: CatalogueAuthors, author_ids) -> dict[int, int]:
    """Each author's papers in the catalogue: from the ranked list, else its posting list."""
    known = catalogue.papers
    return {
        pk: known[pk]
        if pk in known
        else _total(searcher.search(Query.term_query(_schema(), schema.AUTHOR_IDS, pk), 1))
        for pk in author_ids
    }


def _count(searcher, base: Query, paper_ids) -> int:
    return _total(searcher.search(_all_of([base, _any_of(schema.ID, paper_ids)]), 1))


def _ordered(counts: dict[int, int]) -> dict[int, int]:
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _no_facets(query: BrowseQuery) -> Facets:
    return Facets(
        venue={pk: 0 for pk in sorted(query.venue_ids)},
        track={pk: 0 for pk in sorted(query.track_ids)},
        lab={pk: 0 for pk in sorted(query.lab_ids)},
        keyword={pk: 0 for pk in sorted(query.keyword_ids)},
        area={pk: 0 for pk in sorted(query.area_ids)},
        decision={pk: 0 for pk in sorted(query.decision_ids)},
        author={pk: 0 for pk in sorted(query.author_ids)},
        mine=dict.fromkeys(query.mine_sets, 0),
    )


def has_ratings(searcher: tantivy.Searcher) -> bool:
    """Whether any paper has a mean rating (imported reviews): else sorting by it means nothing."""
    # RATING is fast, not indexed: Tantivy answers the range from the fast field; 0 is "none".
    field = (_schema(), schema.RATING, tantivy.FieldType.Unsigned)
    return _total(searcher.search(Query.range_query(*field, lower_bound=1), 1)) > 0


# --- Snippets -----------------------------------------------------------------------------


def snippets(
    searcher: tantivy.Searcher, parsed: ParsedQuery | None, paper_ids: Iterable[int]
) -> dict[int, SafeString]:
    """Safe HTML of each paper's abstract around the search's matches, matches in <mark>.

    Tantivy's snippet generator picks the best fragment of at most SNIPPET_CHARS characters
    (linear in the abstract's length); "…" shows where the abstract was cut. A paper whose
    abstract has no match (or a search with nothing to highlight) gets its abstract's opening.
    The text is rendered as the abstract is on its page (text-mode LaTeX as HTML, math left
    whole for KaTeX), so the snippet belongs in an element marked data-math.
    """
    documents = _documents(searcher, paper_ids)
    wanted = _wanted_words_query(parsed, searcher, documents) if parsed else None
    generator = None
    if wanted is not None:
        generator = tantivy.SnippetGenerator.create(searcher, wanted, _schema(), schema.ABSTRACT)
        generator.set_max_num_chars(SNIPPET_CHARS)
    result = {}
    for pk, document in documents.items():
        abstract = document.get_first(schema.ABSTRACT) or ""
        snippet = generator.snippet_from_doc(document) if generator else None
        if snippet is not None and snippet.highlighted():
            result[pk] = _marked_html(snippet, abstract)
        else:
            result[pk] = _opening_html(abstract)
    return result


def _marked_html(snippet: tantivy.Snippet, abstract: str) -> SafeString:
    fragment = snippet.fragment()
    start = abstract.find(fragment)
    if start == -1:  # not expected: the fragment is a slice of the abstract
        abstract, start = fragment, 0
    # The highlighted ranges are byte offsets into the fragment's UTF-8, on token boundaries.
    raw = fragment.encode()

    def offset(byte: int) -> int:
        return start + len(raw[:byte].decode(errors="replace"))

    marks = [(offset(span.start), offset(span.end)) for span in snippet.highlighted()]
    return _snippet_html(abstract, start, start + len(fragment), marks)


def _opening_html(abstract: str) -> SafeString:
    """The abstract's first SNIPPET_CHARS characters, cut after a word (inside one only if the
    first word is longer)."""
    start = len(abstract) - len(abstract.lstrip())
    end = start + SNIPPET_CHARS
    if end < len(abstract):
        words = _WORDS_BEFORE_SPACE_RE.match(abstract, start, end + 1)
        end = words.end(1) if words else end
    return _snippet_html(abstract, start, min(end, len(abstract)), [])


# The longest run of text that ends a word before a space (greedy: up to the last one).
_WORDS_BEFORE_SPACE_RE = re.compile(r"(.*\S)\s", re.DOTALL)
# A math expression a snippet's window cuts is shown whole if it is at most this long, and left
# out if longer (a stray "$5 ... $10" makes an expression of the text between the dollars).
MAX_SNIPPET_MATH = SNIPPET_CHARS


def _snippet_html(abstract: str, start: int, end: int, marks: list[tuple[int, int]]) -> SafeString:
    """abstract[start:end] as safe HTML with the marks (character ranges) in <mark>.

    KaTeX typesets an expression only when it is whole and in one text node, so the window
    never cuts a math expression (half of one shows its source and an unpaired `$`) and a mark
    touching one covers all of it (a mark inside one would split its text).
    """
    expressions = math_spans(abstract)
    for math_start, math_end in expressions:
        whole = math_end - math_start <= MAX_SNIPPET_MATH
        if math_start < start < math_end:
            start = math_start if whole else math_end
        if math_start < end < math_end:
            end = math_end if whole else math_start
    if start >= end:  # the window lay inside one long expression
        return mark_safe("…")
    # Fragments start and end on words: punctuation beyond them is shown, text is "…".
    head, tail = abstract[:start], abstract[end:]
    start = 0 if _is_trim(head) else start
    end = len(abstract) if _is_trim(tail) else end
    wide_marks: list[tuple[int, int]] = []
    for mark_start, mark_end in sorted(marks):
        for math_start, math_end in expressions:
            if math_start < mark_end and mark_start < math_end:
                mark_start, mark_end = min(mark_start, math_start), max(mark_end, math_end)
        if start <= mark_start and mark_end <= end:
            if wide_marks and mark_start < wide_marks[-1][1]:  # two words of one expression
                mark_start = wide_marks.pop()[0]
            wide_marks.append((mark_start, mark_end))
    shown = [(mark_start - start, mark_end - start) for mark_start, mark_end in wide_marks]
    html = render_latex_inline_marked(abstract[start:end], shown)
    # Every character of the abstract was escaped by the LaTeX pass; only our tags were added.
    return mark_safe(("… " if start else "") + html + (" …" if end < len(abstract) else ""))  # noqa: S308


def _is_trim(text: str) -> bool:
    """Whether this cut-off end of an abstract is only a little punctuation and space."""
    return len(text) <= 10 and not any(char.isalnum() for char in text)


def _documents(searcher: tantivy.Searcher, paper_ids: Iterable[int]) -> dict[int, tantivy.Document]:
    """Stored documents by paper id, in one search; ids not in the index are left out."""
    ids = {int(pk) for pk in paper_ids}
    if not ids:
        return {}
    hits = searcher.search(_any_of(schema.ID, ids), len(ids), count=False).hits
    return {_paper_id(doc): doc for doc in (searcher.doc(a) for _, a in hits)}


# --- Similar papers -----------------------------------------------------------------------


def similar(searcher: tantivy.Searcher, paper_id: int, limit: int = 5) -> list[Similar]:
    """Papers on the same topic ("more like this" on title and abstract), co-authored ones
    ranked up, best first, each with what it shares. Excludes the paper itself."""
    source = _documents(searcher, [paper_id]).get(paper_id)
    if source is None or limit < 1:
        return []
    limit = min(limit, MAX_PAGE_SIZE)
    title = without_latex_commands(source.get_first(schema.TITLE) or "")
    abstract = without_latex_commands(source.get_first(schema.ABSTRACT) or "")
    authors = list(dict.fromkeys(int(a) for a in source.get_all(schema.AUTHOR_IDS)))
    authors = authors[:SIMILAR_AUTHORS]
    not_itself = (Occur.MustNot, Query.term_query(_schema(), schema.ID, paper_id))
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
                        Query.term_query(_schema(), schema.AUTHOR_IDS, a), author_score
                    ),
                )
                for a in authors
            ),
            not_itself,
        ]
    )
    hits = searcher.search(ranked, limit).hits
    source_words = _topic_words(searcher, title, abstract)
    result = []
    for _, address in hits:
        document = searcher.doc(address)
        theirs = {int(a) for a in document.get_all(schema.AUTHOR_IDS)}
        their_stems = {
            stem
            for text in document.get_all(schema.TITLE) + document.get_all(schema.ABSTRACT)
            for _, stem in _terms(text)
        }
        shared = [word for stem, word in source_words if stem in their_stems]
        result.append(
            Similar(
                id=_paper_id(document),
                shared_authors=len(theirs.intersection(authors)),
                shared_terms=tuple(shared[:SIMILAR_REASON_TERMS]),
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
        for _, term in _terms(text):
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
            (Occur.Should, Query.boost_query(Query.term_query(_schema(), name, term), score))
            for score, name, term in best
        ]
    )


@cache
def _stop_terms() -> frozenset[str]:
    # Terms are analysed words: the stop words stemmed too ("thi").
    stemmed = {term for word in STOP_WORDS for _, term in _terms(word)}
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
                stems[word] = [stem for _, stem in _terms(word)]
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


# --- Suggestions ----------------------------------------------------------------------------


def suggest(searcher: tantivy.Searcher, typed: Clause | None, limit: int) -> list[int]:
    """Ids of up to `limit` papers for what someone typed of a title or an author, best first;
    with Greek letters, then those matching them as LaTeX spells them (_greek_spelled)."""
    found = _suggest(searcher, typed, limit)
    spelled = _greek_spelled(typed) if typed is not None else None
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
    terms = _terms(" ".join(typed.words), skip_stop_words=True)
    if not terms:
        return []
    prefix = _typed_prefix(typed, terms)
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
        return _field_query(field_name, terms)
    alternatives = _prefix_field_queries(field_name, terms[:-1], terms[-1][0], prefix)
    return Query.boolean_query([(Occur.Should, query) for query in alternatives])


def _all_words_query(field_name: str, terms: list[tuple[int, str]], prefix: str | None) -> Query:
    """Every term in the field, anywhere; the last one as a prefix when `prefix` is set."""
    *before, (position, last) = terms
    required = [_field_query(field_name, [term]) for term in before]
    required.append(_phrase_query(field_name, [(position, last)], prefix))
    return Query.boolean_query([(Occur.Must, query) for query in required])


# --- New since a moment (saved searches and their digest e-mails) ---------------------------


def _created_after(after: datetime) -> Query:
    # CREATED is fast, not indexed: Tantivy answers the range from the fast field.
    field = (_schema(), schema.CREATED, tantivy.FieldType.Unsigned)
    return Query.range_query(*field, lower_bound=schema.created_micros(after), include_lower=False)


def _matches_created_after(query: BrowseQuery, after: datetime) -> Query | None:
    matcher = _Matcher.of(query)
    if matcher is None:
        return None
    listing = matcher.all()
    return _all_of([listing, _created_after(after)] if listing else [_created_after(after)])


def count_created_after(searcher: tantivy.Searcher, query: BrowseQuery, after: datetime) -> int:
    """How many papers of the listing were created after `after` (its page is ignored): a
    saved search's "N new since you last looked"."""
    matches = _matches_created_after(query, after)
    return _total(searcher.search(matches, 1)) if matches is not None else 0


def ids_created_after(
    searcher: tantivy.Searcher, query: BrowseQuery, after: datetime, limit: int
) -> tuple[list[int], int]:
    """The newest `limit` ids of the listing's papers created after `after`, and how many
    there are: what a digest e-mail lists for a saved search."""
    matches = _matches_created_after(query, after)
    if matches is None:
        return [], 0
    newest = replace(query, sort="newest", offset=0, limit=limit)
    return _page(searcher, matches, newest, scored=False)
