"""The paper list's URL, parsed once into an immutable BrowseState.

A plain Django form validates the facet parameters (bad values are dropped, never an error);
their slugs and ids are resolved to database rows in one query so unknown values are shown as
ignored instead of silently emptying the page. `listing_options` reads the search text, sort,
page size and author box. The search index (papers/search/engine.py) does the filtering:
values within a facet are OR-ed, facets AND-ed; so no FilterSet (django-filter) is needed,
whose filters would only have built the form.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.datastructures import MultiValueDict

from papers import identity
from papers.facet_registry import (
    FACETS,
    INDEXED_FACETS,
    NOT_GIVEN_LABEL,
    NOT_GIVEN_SLUG,
    RESOLVED_FACETS,
    TAG_FACETS,
    FacetSpec,
    Resolves,
)
from papers.numbers import parse_id
from papers.search import meaning
from papers.search.engine import NOT_GIVEN, BrowseQuery
from papers.search.query import parse_query
from papers.tags.identity import looks_like_slug

MAX_VALUES_PER_FACET = 20

# URL parameter -> tag kind, for the facets whose values are tags (papers.facet_registry).
_TAG_KINDS: dict[str, str] = {spec.param: str(spec.tag_kind) for spec in TAG_FACETS}
# Sent by the search box while typing (static/js/search_as_you_type.js), never by the form's
# own submit: the last word then matches as a prefix ("diffu" finds "diffusion").
TYPING_PARAM = "typing"


class ValueListField(forms.Field):
    """A repeated URL parameter; values that cannot be valid are dropped, never an error."""

    widget = forms.MultipleHiddenInput

    def __init__(self, *, accept, **kwargs) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)
        self.accept = accept

    def to_python(self, value) -> list:
        if not value:
            return []
        if isinstance(value, str):
            value = [value]
        kept: list = []
        for raw in value:
            cleaned = self.accept(str(raw).strip())
            if cleaned is not None and cleaned not in kept:
                kept.append(cleaned)
        return kept[:MAX_VALUES_PER_FACET]


def _accept_slug(raw: str) -> str | None:
    return raw if looks_like_slug(raw) else None


def _acceptor(spec: FacetSpec) -> Callable[[str], str | int | None]:
    """What a facet's URL values may be: a slug, an id, or one of its choices."""
    if spec.resolves == Resolves.AUTHOR:
        return parse_id
    if spec.resolves == Resolves.CHOICE:
        return lambda raw: raw if raw in spec.choices else None
    return _accept_slug


class FacetForm(forms.Form):
    """One field per facet (papers.facet_registry.FACETS), named by its URL parameter. It only
    validates: the search index applies the selection."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for spec in FACETS:
            self.fields[spec.param] = ValueListField(accept=_acceptor(spec))


@dataclass
class ResolvedTag:
    pk: int
    slug: str
    name: str


@dataclass
class ResolvedAuthor:
    pk: int
    name: str


@dataclass
class Selection:
    """The facet values of the request that name a record, in the order given: a merged tag's
    or author's as the kept one (papers.identity)."""

    tags: dict[str, list[ResolvedTag]] = field(default_factory=dict)
    authors: list[ResolvedAuthor] = field(default_factory=list)
    # The choice facets' values (FacetSpec.choices keys), by parameter.
    choices: dict[str, list[str]] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    # Values of merged tags and authors, by parameter: old slug or id -> the kept one's.
    moved: dict[str, dict[str, str]] = field(default_factory=dict)
    # The facets (parameters) given values of which none names a record (deleted, or never
    # was): left out, the facet would not filter at all, so a saved search matches nothing.
    vanished: list[str] = field(default_factory=list)

    def ids(self, facet: str) -> frozenset[int]:
        """The selected tags' or authors' ids."""
        if facet == "author":
            return frozenset(author.pk for author in self.authors)
        return frozenset(tag.pk for tag in self.tags.get(facet, []))

    def values(self, spec: FacetSpec) -> list[str | int]:
        """The selected values as a URL names them, in the order given: slugs (a merged tag's
        as the kept tag's), author ids (a merged author's as the kept one's) or choices."""
        if spec.resolves == Resolves.TAG:
            return [tag.slug for tag in self.tags.get(spec.param, [])]
        if spec.resolves == Resolves.AUTHOR:
            return [author.pk for author in self.authors]
        return list(self.choices.get(spec.param, []))

    def index_values(self, spec: FacetSpec) -> frozenset[int]:
        """The selected values as the facet's index field holds them."""
        if spec.resolves == Resolves.CHOICE:
            chosen = self.choices.get(spec.param, [])
            return frozenset(spec.index_values[value] for value in chosen)
        return self.ids(spec.param)


class PaperFilter:
    """The list page's parameters (a QueryDict, or None for none) as `user` may use them.

    `resolved`: the facet values already resolved (identity.resolve), for callers reading many
    queries at once (a member's saved searches); it must hold every value of `data`."""

    def __init__(
        self,
        data: QueryDict | None = None,
        *,
        request=None,
        resolved: identity.Resolved | None = None,
    ) -> None:
        self.data = data
        self.is_bound = data is not None
        self.form = FacetForm(data)
        user = getattr(request, "user", None)
        # The "mine" facet exists only for a logged-in user; otherwise it is ignored.
        self.user = user if user is not None and user.is_authenticated else None
        self._resolved = resolved

    @cached_property
    def cleaned(self) -> dict:
        if not self.is_bound:
            return {}
        self.form.is_valid()  # ValueListField never fails; this only fills cleaned_data.
        return self.form.cleaned_data

    def wanted(self) -> tuple[dict[str, list[str]], list[int]]:
        """The tag slugs (by tag kind) and author ids the parameters name, to resolve."""
        tags: dict[str, list[str]] = {}
        for name, kind in _TAG_KINDS.items():
            tags.setdefault(kind, []).extend(self.cleaned.get(name) or [])
        return tags, list(self.cleaned.get("author") or [])

    @cached_property
    def selection(self) -> Selection:
        """The records the facet values stand for (papers.identity.resolve: none, one or two
        queries; none when given `resolved`)."""
        resolved = self._resolved
        if resolved is None:
            resolved = identity.resolve(*self.wanted())
        spec_of = {spec.param: spec for spec in TAG_FACETS}
        selection = Selection(choices=self.chosen())
        for name, kind in _TAG_KINDS.items():
            selection.tags[name] = []
            for slug in self.cleaned.get(name) or []:
                kept = resolved.tag(kind, slug)
                if slug == NOT_GIVEN_SLUG and spec_of[name].has_not_given:
                    kept = identity.Kept(NOT_GIVEN, slug, NOT_GIVEN_LABEL)
                if added := self._select(selection, name, slug, kept, f"{name} “{slug}”"):
                    selection.tags[name].append(ResolvedTag(added.pk, added.slug, added.name))
        for pk in self.cleaned.get("author") or []:
            kept = resolved.author(pk)
            if added := self._select(selection, "author", str(pk), kept, f"author #{pk}"):
                selection.authors.append(ResolvedAuthor(added.pk, added.name))
        # Invalid raw values (author=abc, bad slugs) are reported too.
        for name in (spec.param for spec in RESOLVED_FACETS):
            kept_values = {str(v) for v in self.cleaned.get(name) or []}
            raw_values = [raw.strip() for raw in self._raw(name) if raw.strip()]
            for raw in raw_values:
                if raw not in kept_values:
                    selection.ignored.append(f"{name} “{raw[:40]}”")
            if raw_values and not selection.ids(name):
                selection.vanished.append(name)
        return selection

    @staticmethod
    def _select(
        selection: Selection, name: str, value: str, kept: identity.Kept | None, label: str
    ) -> identity.Kept | None:
        """`kept` (what `value` of facet `name` stands for) if it joins the selection: not
        when it names nothing (noted as ignored, as `label`) or a record already selected (a
        merged one's value given beside the kept one's)."""
        if kept is None:
            selection.ignored.append(label)
            return None
        if kept.merged:  # a tag's value is its slug, an author's (who has none) their id
            selection.moved.setdefault(name, {})[value] = kept.slug or str(kept.pk)
        return None if kept.pk in selection.ids(name) else kept

    def _raw(self, name: str) -> list[str]:
        return self.data.getlist(name) if isinstance(self.data, MultiValueDict) else []

    def chosen(self) -> dict[str, list[str]]:
        """The choice facets' values (no database row names them), by parameter; a facet for
        logged-in members only is ignored for a visitor."""
        return {
            spec.param: list(self.cleaned.get(spec.param) or [])
            for spec in FACETS
            if spec.resolves == Resolves.CHOICE and (self.user or not spec.logged_in_only)
        }

    def canonical_query(self) -> QueryDict | None:
        """The request's parameters with each merged tag's slug and merged author's id
        replaced by the kept one's, or None when no parameter names a merged record: old
        links keep working, and the address bar shows what the page shows."""
        moved = self.selection.moved
        if not moved or not isinstance(self.data, QueryDict):
            return None
        query = self.data.copy()
        for name, values in moved.items():
            kept = [values.get(value.strip(), value) for value in query.getlist(name)]
            query.setlist(name, list(dict.fromkeys(kept)))
        return query

    @cached_property
    def state(self) -> BrowseState:
        """Everything the list page needs from its URL, validated, in one immutable value."""
        data = self.data if self.data is not None else {}
        raw_q = str(data.get("q", ""))
        return BrowseState(
            options=listing_options(data),
            selection=self.selection,
            page=_page_number(data.get("page")),
            logged_in=self.user is not None,
            # An as-you-type request whose last word is unfinished (no space typed after it).
            typing=data.get(TYPING_PARAM) == "1" and bool(raw_q) and not raw_q[-1].isspace(),
        )


def states_of(queries: Sequence[QueryDict], *, request) -> list[BrowseState]:
    """The list page's state for each of several query strings (a member's saved searches),
    as PaperFilter.state reads each, with the facet values of all of them resolved together:
    one or two queries however many (papers.identity.resolve)."""
    filters = [PaperFilter(query, request=request) for query in queries]
    tags: dict[str, list[str]] = {}
    authors: list[int] = []
    for each in filters:
        wanted_tags, wanted_authors = each.wanted()
        for kind, slugs in wanted_tags.items():
            tags.setdefault(kind, []).extend(slugs)
        authors += wanted_authors
    resolved = identity.resolve(tags, authors)
    return [PaperFilter(each.data, request=request, resolved=resolved).state for each in filters]


SORT_CHOICES = {
    "relevance": "Relevance",
    "title": "Title",
    "newest": "Newest imported",
    "rating": "Mean rating",  # highest first, papers without reviews last
}
PER_PAGE_CHOICES = (10, 25, 50, 100)
DEFAULT_PER_PAGE = 25


# The mean rating's range: its lowest and highest value, each optional.
RATING_PARAMS = ("rating_min", "rating_max")
# No venue's scale comes near it (papers.search.schema clamps the index's values there too).
MAX_RATING_BOUND = 1000


@dataclass(frozen=True)
class ListingOptions:
    q: str
    sort: str
    per_page: int
    author_q: str
    keyword_q: str = ""
    rating_min: float | None = None
    rating_max: float | None = None

    @property
    def default_sort(self) -> str:
        """The order the page picks when none is asked for."""
        return "relevance" if self.q else "newest"

    @property
    def rating_range(self) -> tuple[float | None, float | None]:
        return (self.rating_min, self.rating_max)

    def rating_params(self) -> list[tuple[str, str]]:
        """The range as a URL (and a saved search) names it: "rating_min=5.5", the bounds set."""
        bounds = zip(RATING_PARAMS, self.rating_range, strict=True)
        return [(name, f"{value:g}") for name, value in bounds if value is not None]


def _rating_bound(raw) -> float | None:
    """A bound of the rating range: a number within MAX_RATING_BOUND, else none (dropped)."""
    try:
        value = float(str(raw or "").strip().replace(",", "."))
    except ValueError:
        return None
    return value if math.isfinite(value) and abs(value) <= MAX_RATING_BOUND else None


def _search_text(value) -> str:
    return " ".join(str(value).split())[:200]


def listing_options(params) -> ListingOptions:
    """Search text, sort, page size, the facets' find boxes and the mean rating's range;
    anything invalid falls back (a bound that is no number is dropped).

    The list page's form also sends `sort_for`: the search its sort menu was showing. When the
    search changed (a new one typed into the box), that sort belonged to another result list,
    so the new search is ranked by relevance; a sort picked after searching is kept. A link
    without `sort_for` keeps whatever sort it names.
    """
    q = _search_text(params.get("q", ""))
    sort = params.get("sort", "")
    sort_for = params.get("sort_for")
    if sort_for is not None and _search_text(sort_for) != q:
        sort = ""
    if sort not in SORT_CHOICES or (sort == "relevance" and not q):
        sort = "relevance" if q else "newest"
    raw_per_page = str(params.get("per_page", ""))
    per_page = int(raw_per_page) if raw_per_page in {str(n) for n in PER_PAGE_CHOICES} else 0
    lowest, highest = (_rating_bound(params.get(name)) for name in RATING_PARAMS)
    if lowest is not None and highest is not None and lowest > highest:
        lowest, highest = highest, lowest  # "from 7 to 5" means 5 to 7
    return ListingOptions(
        q=q,
        sort=sort,
        per_page=per_page or DEFAULT_PER_PAGE,
        author_q=_find_text(params, "author_q"),
        keyword_q=_find_text(params, "keyword_q"),
        rating_min=lowest,
        rating_max=highest,
    )


def _find_text(params, name: str) -> str:
    """What a facet's "find" box holds: single spaces, at most 100 characters."""
    return " ".join(str(params.get(name, "")).split())[:100]


# Page numbers past the results show the last page; numbers are capped so the offset stays an
# ordinary integer.
LAST_PAGE = 1_000_000


def _page_number(raw) -> int:
    """The requested page, as Paginator.get_page reads it: not a number is the first page, a
    number out of range (0, negative, past the end) the last one (LAST_PAGE, clamped later)."""
    raw = str(raw or "").strip()
    try:
        number = int(raw)
    except ValueError:
        return 1
    return number if 1 <= number < LAST_PAGE else LAST_PAGE


# What the list form sends that a link holds only as the page applied it (the search, the sort
# and the page size) or never (`sort_for`, only compared with the search by listing_options).
_FORM_ONLY_PARAMS = {"q", "sort_for", "sort", "per_page", TYPING_PARAM, *RATING_PARAMS}


def shareable_query(params: QueryDict, state: BrowseState) -> str:
    """The list page's query string as the address bar should keep it: what the page shows,
    and nothing more.

    Empty fields (an unused find box) and the form's bookkeeping are left out; the sort and
    page size appear when they are not what the page would pick anyway, as applied (a new
    search is ranked by relevance whatever sort the form sent). The typing flag stays only
    while it changes the results (the last word matched as a prefix): without it, reloading,
    sharing the link or going back to it would show other papers than were on screen.
    """
    query = QueryDict(mutable=True)
    if state.options.q:
        query["q"] = state.options.q  # as searched: spaces trimmed and single
    for name, values in params.lists():
        kept = [value for value in values if value.strip()]
        if name not in _FORM_ONLY_PARAMS and kept:
            query.setlist(name, kept)
    for name, value in state.options.rating_params():
        query[name] = value  # as applied: a bound that is no number is left out
    if state.options.sort != state.options.default_sort:
        query["sort"] = state.options.sort
    if state.options.per_page != DEFAULT_PER_PAGE:
        query["per_page"] = str(state.options.per_page)
    if state.typing:
        query[TYPING_PARAM] = "1"
    return query.urlencode()


@dataclass(frozen=True)
class BrowseState:
    """The list page's URL, parsed and validated once: handed to the search engine as is."""

    options: ListingOptions
    selection: Selection
    page: int = 1
    logged_in: bool = False
    typing: bool = False

    @property
    def searching(self) -> bool:
        return bool(self.options.q)

    @cached_property
    def question(self) -> meaning.Question:
        """The search's meaning, one per state: what it answers is kept, so a request that
        searches twice (a page past the end) looks its neighbours up once."""
        return meaning.Question(self.options.q)

    def engine_query(
        self,
        *,
        page: int,
        mine_sets: Mapping[str, frozenset[int]] | None = None,
        keyword_candidates: frozenset[int] = frozenset(),
    ) -> BrowseQuery:
        """What the search index is asked: `mine_sets` are the user's paper ids by "mine"
        value (from the database); the selected ones filter, all of them are counted.
        `keyword_candidates`: the keywords matching the keyword box, counted too."""
        mine_sets = mine_sets or {}
        mine_ids = None
        if mine := self.selection.choices.get("mine"):
            # Not in the index: the member's own papers, by id (BrowseQuery.mine_ids).
            mine_ids = frozenset().union(*(mine_sets.get(v, frozenset()) for v in mine))
        per_page = self.options.per_page
        # Each indexed facet's selection, by its BrowseQuery attribute (papers.facet_registry).
        selected: dict[str, Any] = {
            str(spec.query_attribute): self.selection.index_values(spec) for spec in INDEXED_FACETS
        }
        # Typing lists word matches only (each keystroke would embed a half-typed word); the
        # entered search lists the papers close in meaning too, the engine asking for those
        # the filters allow.
        by_meaning = self.searching and not self.typing
        return BrowseQuery(
            parsed=parse_query(self.options.q, prefix_last=self.typing) if self.options.q else None,
            meaning=self.question if by_meaning else None,
            **selected,
            keyword_candidates=keyword_candidates,
            mine_ids=mine_ids,
            mine_sets=mine_sets,
            rating_range=self.options.rating_range,
            sort=self.options.sort,
            offset=(page - 1) * per_page,
            limit=per_page,
        )
