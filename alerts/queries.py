"""A saved search's query: the list page's query string, validated and normalised the way the
list page itself reads it (papers.filters.PaperFilter), and counted through the search index."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace

from django.http import QueryDict
from django.utils.http import urlencode

from alerts.models import MAX_QUERY, SavedSearch
from papers.facet_registry import FACETS
from papers.filters import BrowseState, PaperFilter, states_of
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
    (unknown ones are dropped and named in `ignored`), the mean rating's range and a sort
    other than the default; never the page, the as-you-type flag, the page size or the
    facets' find boxes."""
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
    params += state.options.rating_params()
    if state.options.sort != ("relevance" if state.options.q else "newest"):
        params.append(("sort", state.options.sort))
    return Normalised(urlencode(params), list(state.selection.ignored))


def _uses_mine(state: BrowseState) -> bool:
    """Whether the search selects the member's own papers (the "mine" facet)."""
    return bool(state.selection.choices.get("mine"))


def browse_states(searches: list[SavedSearch], user) -> list[BrowseState]:
    """Each search's list page state, read by the list page's own code (papers.filters), their
    facet values resolved together: a merged tag or author stands for the kept one."""
    queries = [QueryDict(search.query) for search in searches]
    return states_of(queries, request=SimpleNamespace(user=user))


@dataclass(frozen=True)
class Standing:
    """Where a saved search stands: its new papers, or why it matches nothing."""

    new: int
    # When a facet's values all name nothing any more (an author deleted, not merged), the
    # values left out: the search then matches nothing rather than every paper.
    gone: list[str]


def _engine_queries(user, searches) -> list[tuple[SavedSearch, BrowseQuery | None, BrowseState]]:
    """Each search with its query for the index (None for a search that matches nothing) and
    its state: their facet values resolved in one query (two if one names a merged record),
    the member's own papers in one more if a search uses "mine"."""
    searches = list(searches)
    if not searches:
        return []
    states = browse_states(searches, user)
    # One query, only when a search uses the "mine" facet; always the owner's own papers.
    uses_mine = any(_uses_mine(state) for state in states)
    mine_sets = Paper.objects.mine_sets(user) if uses_mine else {}
    return [
        (search, _engine_query(state, mine_sets), state)
        for search, state in zip(searches, states, strict=True)
    ]


def _engine_query(state: BrowseState, mine_sets: dict[str, frozenset[int]]) -> BrowseQuery | None:
    if state.selection.vanished:
        return None
    return state.engine_query(page=1, mine_sets=mine_sets if _uses_mine(state) else {})


def standings(user, searches) -> dict[int, Standing]:
    """Saved search pk -> how many of its papers were created after its last_seen_at, and what
    vanished if it matches nothing.

    At most four queries, however many searches: their facet values resolved to rows (and to
    the kept ones of merged values, when any is not found), the member's own papers if a
    search uses "mine", and the index's catch-up check."""
    queries = _engine_queries(user, searches)
    if not queries:
        return {}
    searcher = current_searcher()
    return {
        search.pk: Standing(
            new=engine.count_created_after(searcher, query, search.last_seen_at) if query else 0,
            gone=[] if query else list(state.selection.ignored),
        )
        for search, query, state in queries
    }


def new_counts(user, searches) -> dict[int, int]:
    """Saved search pk -> how many of its papers were created after its last_seen_at."""
    return {pk: standing.new for pk, standing in standings(user, searches).items()}


def new_ids(
    user, searches, since: dict[int, datetime], limit: int
) -> dict[int, tuple[list[int], int]]:
    """Saved search pk -> (the newest `limit` ids created after since[pk], how many in all)."""
    queries = _engine_queries(user, searches)
    if not queries:
        return {}
    searcher = current_searcher()
    return {
        search.pk: (
            engine.ids_created_after(searcher, query, since[search.pk], limit) if query else ([], 0)
        )
        for search, query, _state in queries
    }
