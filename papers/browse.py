"""The list page's search, run once for every consumer of it (the page, papers.views.paper_list,
and the JSON API, api/): the request's parameters read by PaperFilter, the index asked with the
member's own paper sets and the facets' find boxes, the page clamped to the last one as
Paginator.get_page does. What each shows of the result is theirs."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from papers.filters import BrowseState, PaperFilter
from papers.models import Author, Paper
from papers.querysets import keywords_containing
from papers.search import engine
from papers.search.engine import BrowseQuery

# Authors whose names match the "find an author" box that the facet considers (by id).
AUTHOR_CANDIDATES = 5000
# Keywords matching the "find a keyword" box that the facet counts (each is one more filter in
# the facet's aggregation).
KEYWORD_CANDIDATES = 50


@dataclass(frozen=True)
class Search:
    """One run of the list page's search: the state as applied (a rating sort without ratings
    falls back), the query the index was asked, its results and the page they are of."""

    state: BrowseState
    query: BrowseQuery
    results: engine.Results
    page: int
    rated: bool
    author_candidates: list[int] | None
    keyword_candidates: list[int] | None


def run_search(searcher, filters: PaperFilter, user) -> Search:
    """The list page's results for `filters` (its URL parameters) as `user` may see them."""
    state = filters.state
    rated = engine.has_ratings(searcher)
    if state.options.sort == "rating" and not rated:
        # No paper has a rating, so the menu does not offer the sort: the page's own order.
        state = replace(state, options=replace(state.options, sort=state.options.default_sort))
    mine_sets = Paper.objects.mine_sets(user) if state.logged_in else {}
    candidates = None
    if state.options.author_q:
        candidates = Author.objects.name_contains(state.options.author_q)[:AUTHOR_CANDIDATES]
    facet_size = engine.ALL_BUCKETS if candidates is not None else engine.AUTHOR_FACET_SIZE
    keywords = None
    if state.options.keyword_q:
        keywords = keywords_containing(state.options.keyword_q, limit=KEYWORD_CANDIDATES)
    wanted = frozenset(keywords or ())
    query = state.engine_query(page=state.page, mine_sets=mine_sets, keyword_candidates=wanted)
    results = engine.search(searcher, query, author_facet_size=facet_size)
    last_page = max(1, math.ceil(results.total / state.options.per_page))
    if state.page > last_page:  # past the end: the last page, as Paginator.get_page does
        query = state.engine_query(page=last_page, mine_sets=mine_sets, keyword_candidates=wanted)
        results = engine.search(searcher, query, author_facet_size=facet_size)
    return Search(
        state=state,
        query=query,
        results=results,
        page=min(state.page, last_page),
        rated=rated,
        author_candidates=candidates,
        keyword_candidates=keywords,
    )
