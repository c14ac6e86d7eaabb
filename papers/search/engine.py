"""Search over the catalogue's Tantivy index: a listing's page of ids, every id of a
listing, its size, and the papers new since a moment.

A library over an open `tantivy.Searcher`: it never touches the database (the caller hands it
whatever the database must say, such as the ids of the user's own papers) and never opens or
updates an index. User text reaches it only as a `ParsedQuery`, a tree of plain words, which
is turned into Tantivy queries term by term; Tantivy's own query syntax is never used.

The engine's parts, each its own module: `values` (what it takes and gives), `analysis` (the
index's words), `building` (queries), `counting` (facet counts), `snippets`, `similar`,
`suggestions`, `spelling`. Their public functions are named here too, as the engine's API.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime

import tantivy
from django.utils.safestring import SafeString

from papers.facet_registry import INDEXED_FACETS, FacetSpec
from papers.search import schema
from papers.search.analysis import index_schema
from papers.search.building import (
    MAX_PAGE_SIZE,
    all_of,
    any_of,
    hit_count,
    text_query,
    unscored_filter,
)
from papers.search.completion import with_open_last_word
from papers.search.counting import ALL_BUCKETS, AUTHOR_FACET_SIZE, facet_counts, no_facets
from papers.search.fusion import Fused, either, fused_page, neighbours_within, reasons
from papers.search.loose import ALL_FIRST, FEW_MATCHES, loose_query
from papers.search.query import ParsedQuery
from papers.search.similar import similar as similar
from papers.search.snippets import snippets as _snippets
from papers.search.spelling import spelling_suggestion as spelling_suggestion
from papers.search.suggestions import suggest as suggest
from papers.search.values import (
    NOT_GIVEN,
    BrowseQuery,
    Facets,
    LooseMatch,
    Results,
    Similar,
    facet_selection,
)

__all__ = [
    "ALL_BUCKETS",
    "AUTHOR_FACET_SIZE",
    "NOT_GIVEN",
    "BrowseQuery",
    "Facets",
    "Results",
    "Similar",
    "similar",
    "snippets",
    "spelling_suggestion",
    "suggest",
]

Occur = tantivy.Occur
Query = tantivy.Query
SORTS = ("relevance", "newest", "title", "rating")


def search(
    searcher: tantivy.Searcher, query: BrowseQuery, *, author_facet_size: int = AUTHOR_FACET_SIZE
) -> Results:
    """The page of paper ids, the number of matches and every facet's counts."""
    matcher = _Matcher.of(query, searcher)
    if matcher is None:  # a search with nothing that can match
        return Results([], 0, no_facets(query))
    if matcher.fuses(query):
        fused = matcher.fused_page(searcher, query)
        ids, total = fused.ids, fused.total
    else:
        everything = matcher.all() or Query.all_query()
        ids, total = _page(searcher, everything, query, scored=matcher.scored)
    close: frozenset[int] = frozenset()
    by_meaning: frozenset[int] = frozenset()
    if matcher.words is not None:
        close, by_meaning = reasons(searcher, matcher.words, matcher.neighbours, ids)
    facets = facet_counts(searcher, query, matcher.all, total, author_facet_size)
    return Results(ids, total, facets, loose=matcher.loose, close=close, by_meaning=by_meaning)


def snippets(
    searcher: tantivy.Searcher,
    parsed: ParsedQuery | None,
    paper_ids: Iterable[int],
    body_texts: Callable[[list[int]], Mapping[int, str]] | None = None,
    unmarked: Collection[int] = frozenset(),
) -> dict[int, SafeString]:
    """Each paper's abstract around the search's matches, or the PDF page that matched
    (snippets.py), the last word's completions marked too when the search matched it as a
    prefix (completion.py); the papers `unmarked` (not matched by the words) get their
    abstract's opening, nothing marked."""
    if parsed:
        parsed = with_open_last_word(searcher, parsed)
    return _snippets(searcher, parsed, paper_ids, body_texts, unmarked)


def page_ids(searcher: tantivy.Searcher, query: BrowseQuery) -> tuple[list[int], int]:
    """The page of paper ids and the number of matches, without counting facets: for looking
    up a result's neighbours, where the counts would be wasted."""
    matcher = _Matcher.of(query, searcher)
    if matcher is None:
        return [], 0
    if matcher.fuses(query):
        fused = matcher.fused_page(searcher, query)
        return fused.ids, fused.total
    return _page(searcher, matcher.all() or Query.all_query(), query, scored=matcher.scored)


@dataclass(frozen=True)
class _Matcher:
    """A listing's search and its selected facets as queries."""

    text: Query | None
    filters: dict[str, Query]
    loose: LooseMatch | None = None  # the text matches most of the search's words (loose.py)
    # The search's words alone, when `text` also matches the papers close in meaning
    # (`neighbours`, the nearest within the filters: fusion.py).
    words: Query | None = None
    neighbours: tuple[int, ...] = ()

    @classmethod
    def of(cls, query: BrowseQuery, searcher: tantivy.Searcher) -> _Matcher | None:
        """None when the search has nothing that can match.

        The search's last word matches as a prefix when the index does not hold it
        (completion.py); when all its words match few papers, a long search matches most of
        them instead (loose.py). Both are decided over the whole index, whatever the facets
        select, so that choosing a facet value narrows the list it was counted in."""
        text, loose = None, None
        if query.parsed is not None:
            parsed = with_open_last_word(searcher, query.parsed)
            text = text_query(parsed)
            if text is None:
                return None
            if query.loose_fallback and (wider := loose_query(parsed)) is not None:
                all_words = hit_count(searcher.search(text, 1))
                if all_words < FEW_MATCHES and not hit_count(searcher.search(wider, 1)):
                    wider = loose_query(parsed, fewest=True) or wider
                if all_words < FEW_MATCHES:
                    # The few papers with every word first, the others by BM25 after them.
                    text = Query.boolean_query(
                        [(Occur.Must, wider), (Occur.Should, Query.boost_query(text, ALL_FIRST))]
                    )
                    loose = LooseMatch(all_words)
        filters = {
            spec.engine_name: _facet_filter(spec, selected)
            for spec in INDEXED_FACETS
            if (selected := facet_selection(query, spec))
        }
        if query.mine_ids is not None:
            filters["mine"] = unscored_filter(schema.ID, query.mine_ids)
        if query.rating_range != (None, None):
            filters["rating"] = _rating_between(*query.rating_range)
        if text is not None and query.meaning is not None:
            near = tuple(neighbours_within(searcher, query.meaning, list(filters.values())))
            if near:
                return cls(either(text, near), filters, loose, words=text, neighbours=near)
        return cls(text, filters, loose)

    @property
    def scored(self) -> bool:
        return self.text is not None

    def fuses(self, query: BrowseQuery) -> bool:
        """Whether the page is the fused ranking of words and meaning: by relevance only."""
        return self.words is not None and _effective_sort(query.sort, scored=True) == "relevance"

    def fused_page(
        self, searcher: tantivy.Searcher, query: BrowseQuery, max_limit: int = MAX_PAGE_SIZE
    ) -> Fused:
        assert self.words is not None
        return fused_page(
            searcher,
            self.words,
            self.neighbours,
            list(self.filters.values()),
            offset=max(0, query.offset),
            limit=min(max(0, query.limit), max_limit),
            loose=self.loose is not None,
        )

    def all(self, without: str | None = None) -> Query | None:
        """The search and every selected facet but `without`; None when that is everything."""
        wanted = [self.text] if self.text is not None else []
        wanted += [f for name, f in self.filters.items() if name != without]
        return all_of(wanted) if wanted else None


def all_ids(searcher: tantivy.Searcher, query: BrowseQuery) -> list[int]:
    """Every matching paper id in the listing's order, whatever the query's page, and no facet
    counts: what an export of the listing writes. Tantivy holds one hit per match (a few MB
    for the whole catalogue) instead of a page's."""
    matcher = _Matcher.of(query, searcher)
    everything = searcher.num_docs
    if matcher is None or not everything:
        return []
    matches = matcher.all() or Query.all_query()
    sort = _effective_sort(query.sort, scored=matcher.scored)
    if sort in _BY_COARSE_KEY_AND_ID:
        return _ids_by_coarse_key(searcher, matches, _BY_COARSE_KEY_AND_ID[sort])
    whole = replace(query, offset=0, limit=everything)
    if matcher.fuses(whole):
        return matcher.fused_page(searcher, whole, max_limit=everything).ids
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
    matcher = _Matcher.of(query, searcher)
    if matcher is None or not searcher.num_docs:
        return 0
    return hit_count(searcher.search(matcher.all() or Query.all_query(), limit=1, count=True))


def _facet_filter(spec: FacetSpec, ids: frozenset[int]) -> Query:
    """Papers with any of the selected values; with NOT_GIVEN, also those with no value."""
    field_name = spec.index_field
    assert field_name is not None  # INDEXED_FACETS only
    if not spec.has_not_given or NOT_GIVEN not in ids:
        return unscored_filter(field_name, ids)
    without_value = Query.boolean_query(
        [(Occur.Must, Query.all_query()), (Occur.MustNot, Query.exists_query(field_name))]
    )
    either = [(Occur.Should, without_value)]
    if ids - {NOT_GIVEN}:
        either.append((Occur.Should, any_of(field_name, ids - {NOT_GIVEN})))
    return Query.const_score_query(Query.boolean_query(either), 0.0)


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
        return [], hit_count(searcher.search(matches, 1))
    sort = _effective_sort(query.sort, scored=scored)
    if sort == "relevance":
        result = searcher.search(matches, limit, offset=offset)
        hits, total = result.hits, hit_count(result)
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
        return [], hit_count(located)
    first, last = int(located.hits[0][0]), int(located.hits[-1][0])
    window = [matches, _coarse_range(keys, last, "through")]
    skipped = 0
    if offset:
        skipped = hit_count(
            searcher.search(all_of([matches, _coarse_range(keys, first, "before")]), 1)
        )
        window.append(_coarse_range(keys, first, "from"))
    page = searcher.search(
        all_of(window),
        limit,
        count=False,
        order_by_field=keys.exact,
        offset=offset - skipped,
        order=keys.order,
    )
    return page.hits, hit_count(located)


def _coarse_range(keys: _SortKeys, value: int, part: str) -> Query:
    """The hits whose coarse key comes "before" `value` in the sort order, or "from" it on,
    or "through" it (up to and including it)."""
    ascending = keys.order == tantivy.Order.Asc
    upper = (part != "from") == ascending  # "before"/"through" lie below when ascending
    include = part != "before"
    field = (index_schema(), keys.coarse, tantivy.FieldType.Unsigned)
    if upper:
        return Query.range_query(*field, upper_bound=value, include_upper=include)
    return Query.range_query(*field, lower_bound=value, include_lower=include)


def _rating_between(lowest: float | None, highest: float | None) -> Query:
    """Papers whose mean rating is in the range (to a thousandth, as the index holds it)."""
    # RATING is fast, not indexed: Tantivy answers the range from the fast field; 0 is "none".
    field = (index_schema(), schema.RATING, tantivy.FieldType.Unsigned)
    lower = schema.rating_code(lowest) if lowest is not None else 1
    if highest is None:
        return Query.range_query(*field, lower_bound=lower)
    return Query.range_query(*field, lower_bound=lower, upper_bound=schema.rating_code(highest))


def has_ratings(searcher: tantivy.Searcher) -> bool:
    """Whether any paper has a mean rating (imported reviews): else sorting by it means nothing."""
    # RATING is fast, not indexed: Tantivy answers the range from the fast field; 0 is "none".
    field = (index_schema(), schema.RATING, tantivy.FieldType.Unsigned)
    return hit_count(searcher.search(Query.range_query(*field, lower_bound=1), 1)) > 0


# --- New since a moment (saved searches and their digest e-mails) ---------------------------


def _created_after(after: datetime) -> Query:
    # CREATED is fast, not indexed: Tantivy answers the range from the fast field.
    field = (index_schema(), schema.CREATED, tantivy.FieldType.Unsigned)
    return Query.range_query(*field, lower_bound=schema.created_micros(after), include_lower=False)


def _matches_created_after(
    searcher: tantivy.Searcher, query: BrowseQuery, after: datetime
) -> Query | None:
    matcher = _Matcher.of(query, searcher)
    if matcher is None:
        return None
    listing = matcher.all()
    return all_of([listing, _created_after(after)] if listing else [_created_after(after)])


def count_created_after(searcher: tantivy.Searcher, query: BrowseQuery, after: datetime) -> int:
    """How many papers of the listing were created after `after` (its page is ignored): a
    saved search's "N new since you last looked"."""
    matches = _matches_created_after(searcher, query, after)
    return hit_count(searcher.search(matches, 1)) if matches is not None else 0


def ids_created_after(
    searcher: tantivy.Searcher, query: BrowseQuery, after: datetime, limit: int
) -> tuple[list[int], int]:
    """The newest `limit` ids of the listing's papers created after `after`, and how many
    there are: what a digest e-mail lists for a saved search."""
    matches = _matches_created_after(searcher, query, after)
    if matches is None:
        return [], 0
    newest = replace(query, sort="newest", offset=0, limit=limit)
    return _page(searcher, matches, newest, scored=False)
