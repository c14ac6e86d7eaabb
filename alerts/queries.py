"""A saved search's query: the list page's query string, validated and normalised the way the
list page itself reads it (papers.filters.PaperFilter), and counted through the search index."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace

from django.http import QueryDict
from django.utils.http import urlencode

from alerts.models import MAX_QUERY, SavedSearch
from papers.facet_registry import FACETS, RESOLVED_FACETS
from papers.filters import (
    MAX_VALUES_PER_FACET,
    BrowseState,
    PaperFilter,
    Selection,
    listing_options,
)
from papers.models import Paper
from papers.search import engine
from papers.search.engine import BrowseQuery
from papers.search.sync import current_searcher


class QueryError(ValueError):
    """A query string that cannot be saved; the message says why, for the member."""


@dataclass(frozen=True)
class Normalised:
    query: str
    ignored: list[str]


def normalise_query(raw: str, user) -> Normalised:
    """The query string a saved search keeps: the search text, the facet values that exist
    (unknown ones are dropped and named in `ignored`) and a sort other than the default; never
    the page, the as-you-type flag, the page size or the facets' find boxes."""
    if len(raw) > MAX_QUERY:
        raise QueryError(f"This search is too long to save (over {MAX_QUERY:,} characters).")
    data = QueryDict(raw)
    # Written out or percent-encoded (%00), a NUL is never part of a real search.
    if "\x00" in raw or any("\x00" in key + "".join(values) for key, values in data.lists()):
        raise QueryError("This search holds a NUL character and cannot be saved.")
    state = PaperFilter(data, request=SimpleNamespace(user=user)).state
    params: list[tuple[str, str | int]] = []
    if state.options.q:
        params.append(("q", state.options.q))
    for spec in FACETS:  # every facet, as the list page resolved it
        params += [(spec.param, value) for value in state.selection.values(spec)]
    if state.options.sort != ("relevance" if state.options.q else "newest"):
        params.append(("sort", state.options.sort))
    return Normalised(urlencode(params), list(state.selection.ignored))


def _engine_query(state: BrowseState, mine_sets: dict[str, frozenset[int]]):
    return state.engine_query(page=1, mine_sets=mine_sets if _uses_mine(state) else {})


def _uses_mine(state: BrowseState) -> bool:
    """Whether the search selects the member's own papers (the "mine" facet)."""
    return bool(state.selection.choices.get("mine"))


def browse_states(searches: list[SavedSearch], user) -> list[BrowseState]:
    """Each search's list page state, as PaperFilter.state reads its URL, with the facet
    values of all the searches resolved to rows in one query: the list page's own resolution
    (PaperFilter.selection) run once over them all, then handed back to each search. Falls
    back to a query per search when together they pass the limit of values per facet."""
    request = SimpleNamespace(user=user)
    filters = [PaperFilter(QueryDict(search.query), request=request) for search in searches]
    merged = QueryDict(mutable=True)
    resolved_params = [spec.param for spec in RESOLVED_FACETS]
    for name in resolved_params:
        values = {str(v): None for f in filters for v in f.cleaned.get(name) or []}
        if len(values) > MAX_VALUES_PER_FACET:
            return [f.state for f in filters]
        merged.setlist(name, list(values))
    resolved = PaperFilter(merged, request=request).selection
    states = []
    for f in filters:
        # A slug of a tag merged into another (TagAlias) stands for the kept tag, whose slug
        # the shared resolution holds: without this, a search on a merged keyword lost its
        # keyword and matched every paper.
        wanted = {
            name: {resolved.moved.get(name, {}).get(value, value) for value in values}
            for name in resolved_params
            for values in [f.cleaned.get(name) or []]
        }
        selection = Selection(
            tags={
                name: [tag for tag in tags if tag.slug in wanted[name]]
                for name, tags in resolved.tags.items()
            },
            authors=[author for author in resolved.authors if author.pk in wanted["author"]],
            choices=f.chosen(),
        )
        # As PaperFilter.state builds it, with the shared resolution (a saved search has no
        # page and never the as-you-type flag).
        states.append(
            BrowseState(
                options=listing_options(f.data),
                selection=selection,
                logged_in=f.user is not None,
            )
        )
    return states


def _mine_sets(user, states: list[BrowseState]) -> dict[str, frozenset[int]]:
    # One query, only when a search uses the "mine" facet; always the owner's own papers.
    return Paper.objects.mine_sets(user) if any(_uses_mine(s) for s in states) else {}


def _engine_queries(user, searches) -> list[tuple[SavedSearch, BrowseQuery]]:
    """Each search with its query for the index: their facet values resolved in one query,
    the member's own papers in one more if a search uses "mine"."""
    searches = list(searches)
    if not searches:
        return []
    states = browse_states(searches, user)
    mine_sets = _mine_sets(user, states)
    return [
        (search, _engine_query(state, mine_sets))
        for search, state in zip(searches, states, strict=True)
    ]


def new_counts(user, searches) -> dict[int, int]:
    """Saved search pk -> how many of its papers were created after its last_seen_at.

    At most three queries, however many searches: their facet values resolved to rows, the
    member's own papers if a search uses "mine", and the index's catch-up check."""
    queries = _engine_queries(user, searches)
    if not queries:
        return {}
    searcher = current_searcher()
    return {
        search.pk: engine.count_created_after(searcher, query, search.last_seen_at)
        for search, query in queries
    }


def new_ids(
    user, searches, since: dict[int, datetime], limit: int
) -> dict[int, tuple[list[int], int]]:
    """Saved search pk -> (the newest `limit` ids created after since[pk], how many in all)."""
    queries = _engine_queries(user, searches)
    if not queries:
        return {}
    searcher = current_searcher()
    return {
        search.pk: engine.ids_created_after(searcher, query, since[search.pk], limit)
        for search, query in queries
    }
