"""Walking a list page's results from a paper page: "back to results" and previous/next.

A result's link carries the list's query string (`from`) and its rank in the results (`at`,
counting from 1), so the paper page can ask the search index for its neighbours without
keeping anything on the server, and the URL stays shareable. The index may have changed since
the list was shown: the rank is a hint, checked against the paper's id.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import QueryDict
from django.urls import reverse

from papers.filters import TYPING_PARAM, PaperFilter
from papers.models import DISPLAY_TITLE_FIELDS, Paper
from papers.numbers import bounded_int
from papers.search import engine

FROM_PARAM = "from"
AT_PARAM = "at"
# A list URL's query string longer than this is not a list page's (its fields are bounded).
MAX_FROM_LENGTH = 4_000
# Ranks past this are beyond any page the list offers (its page numbers are capped too).
MAX_RANK = 100_000


@dataclass(frozen=True)
class Neighbour:
    paper: Paper
    url: str


@dataclass(frozen=True)
class ResultsNavigation:
    back_url: str
    rank: int
    total: int
    previous: Neighbour | None
    next: Neighbour | None


def result_link_prefix(list_params: QueryDict) -> str:
    """What every result link of a list page starts its query string with; the result's rank
    is appended. The page number is left out (the rank says where the paper is), and so is
    search-as-you-type's marker (the link is followed once typing is over)."""
    kept = list_params.copy()
    for name in ("page", TYPING_PARAM):
        kept.pop(name, None)
    return f"{urlencode({FROM_PARAM: kept.urlencode()})}&{AT_PARAM}="


def _result_link_query(list_query: str, rank: int) -> str:
    return urlencode({FROM_PARAM: list_query, AT_PARAM: rank})


def results_context(data: QueryDict) -> dict[str, str]:
    """The results-navigation parameters (`from`, `at`) in `data`, both or none: what the paper
    page's forms post along so that, without JavaScript, the page they redirect back to still
    knows where in the results the member was."""
    list_query, rank = data.get(FROM_PARAM), data.get(AT_PARAM)
    if not list_query or not rank or len(list_query) > MAX_FROM_LENGTH or len(rank) > 10:
        return {}
    return {FROM_PARAM: list_query, AT_PARAM: rank}


def results_navigation(request, searcher, paper: Paper) -> ResultsNavigation | None:
    """The paper's place in the results it was opened from; None when it was not opened from
    a list (or the link was mangled), and the page shows no results navigation."""
    list_query = request.GET.get(FROM_PARAM)
    rank = _rank(request.GET.get(AT_PARAM))
    if list_query is None or rank is None or len(list_query) > MAX_FROM_LENGTH:
        return None
    params = QueryDict(list_query)
    state = PaperFilter(params, request=request).state
    mine_sets = Paper.objects.mine_sets(request.user) if state.logged_in else {}
    # The window around the rank: the paper itself and one on either side.
    query = dataclasses.replace(
        state.engine_query(page=1, mine_sets=mine_sets), offset=max(0, rank - 2), limit=3
    )
    ids, total = engine.page_ids(searcher, query)
    if paper.pk not in ids:  # the results moved under the link: only the way back is known
        return ResultsNavigation(
            _back_url(params, rank, state.options.per_page, paper), rank, total, None, None
        )
    here = ids.index(paper.pk)
    rank = max(0, rank - 2) + here + 1
    before = ids[here - 1] if here > 0 else None
    after = ids[here + 1] if here + 1 < len(ids) else None
    papers = (
        Paper.objects.only(*DISPLAY_TITLE_FIELDS)
        .order_by()
        .in_bulk([pk for pk in (before, after) if pk])
    )

    def neighbour(pk: int | None, neighbour_rank: int) -> Neighbour | None:
        if pk is None or pk not in papers:
            return None
        other = papers[pk]
        url = f"{other.get_absolute_url()}?{_result_link_query(list_query, neighbour_rank)}"
        return Neighbour(other, url)

    return ResultsNavigation(
        back_url=_back_url(params, rank, state.options.per_page, paper),
        rank=rank,
        total=total,
        previous=neighbour(before, rank - 1),
        next=neighbour(after, rank + 1),
    )


def _rank(raw: str | None) -> int | None:
    return bounded_int(raw, low=1, high=MAX_RANK)


def _back_url(params: QueryDict, rank: int, per_page: int, paper: Paper) -> str:
    """The list page holding the paper's rank, with every other choice of the list kept,
    scrolled to the paper."""
    back = params.copy()
    page = math.ceil(rank / per_page)
    if page > 1:
        back["page"] = str(page)
    else:
        back.pop("page", None)
    query = back.urlencode()
    return f"{reverse('papers:list')}{'?' if query else ''}{query}#paper-{paper.pk}"
