"""The paper list's URL parameters: facet filters (a django-filter FilterSet) and listing options.

Every facet is OR within its values and AND across facets. Values arrive as slugs or ids from the
URL; they are resolved to database rows in one query so unknown values can be dropped (and shown
as ignored) instead of silently emptying the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import django_filters
from django import forms
from django.db.models import Exists, OuterRef, Q, QuerySet, Value

from papers.models import Author, Authorship, Paper, PaperTag, Tag, TagKind

MAX_VALUES_PER_FACET = 20
# Above this many matches the page query filters with EXISTS instead of IN (see page_queryset).
CORRELATED_FILTER_MIN_MATCHES = 2000
# Largest id a bigint column holds; larger numbers are not ids.
_MAX_ID = 2**63 - 1
_SLUG_RE = re.compile(r"^[-\w]{1,100}$")

# URL parameter -> tag kind for the facets backed by tags.
TAG_FACETS = {"venue": TagKind.VENUE, "track": TagKind.TRACK, "tag": TagKind.LAB}
MINE_CHOICES = {"lists": "In my reading lists", "notes": "Has my note"}


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
    return raw if _SLUG_RE.match(raw) else None


def _accept_id(raw: str) -> int | None:
    if not raw.isascii() or not raw.isdigit():
        return None
    number = int(raw)
    return number if 0 < number <= _MAX_ID else None


def _accept_mine(raw: str) -> str | None:
    return raw if raw in MINE_CHOICES else None


class FacetFilter(django_filters.Filter):
    """Base for the facets: the parent FilterSet resolves values, the subclass builds the Q."""

    field_class = ValueListField
    accept = staticmethod(_accept_slug)

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("accept", self.accept)
        super().__init__(*args, **kwargs)

    def filter(self, qs: QuerySet, value, *, correlated: bool = False) -> QuerySet:
        condition = self.condition(correlated=correlated)
        return qs if condition is None else qs.filter(condition)

    def condition(self, *, correlated: bool = False) -> Q | Exists | None:
        raise AttributeError("FacetFilter subclasses define condition()")


class TagFacetFilter(FacetFilter):
    def condition(self, *, correlated: bool = False) -> Q | Exists | None:
        ids = [tag.pk for tag in self.parent.selection.tags[self.field_name]]
        if not ids:
            return None
        if correlated:
            return Exists(PaperTag.objects.filter(paper_id=OuterRef("pk"), tag_id__in=ids))
        return Q(pk__in=PaperTag.objects.filter(tag_id__in=ids).values("paper_id"))


class AuthorFacetFilter(FacetFilter):
    accept = staticmethod(_accept_id)

    def condition(self, *, correlated: bool = False) -> Q | Exists | None:
        ids = [author.pk for author in self.parent.selection.authors]
        if not ids:
            return None
        if correlated:
            return Exists(Authorship.objects.filter(paper_id=OuterRef("pk"), author_id__in=ids))
        return Q(pk__in=Authorship.objects.filter(author_id__in=ids).values("paper_id"))


class MineFacetFilter(FacetFilter):
    accept = staticmethod(_accept_mine)

    def condition(self, *, correlated: bool = False) -> Q | Exists | None:
        values = self.parent.selection.mine
        if not values:
            return None
        condition = Q()
        for value in values:
            condition |= mine_condition(value, self.parent.user)
        return condition


def mine_condition(value: str, user) -> Q:
    """Papers in the user's reading lists or with the user's note, by reverse lookup name only."""
    if value == "lists":
        owned = Paper.objects.filter(reading_list_items__reading_list__owner=user)
    else:
        owned = Paper.objects.filter(notes__owner=user)
    return Q(pk__in=owned.values("pk"))


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
    """The facet values of the request that exist in the database, in the order given."""

    tags: dict[str, list[ResolvedTag]] = field(default_factory=dict)
    authors: list[ResolvedAuthor] = field(default_factory=list)
    mine: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not (any(self.tags.values()) or self.authors or self.mine)


class PaperFilter(django_filters.FilterSet):
    # Declared from the usually most selective facet to the least: see queryset_without.
    author = AuthorFacetFilter()
    tag = TagFacetFilter()
    mine = MineFacetFilter()
    track = TagFacetFilter()
    venue = TagFacetFilter()

    class Meta:
        model = Paper
        fields: list[str] = []

    def __init__(
        self, data=None, queryset=None, *, request=None, search_text: str = "", **kwargs
    ) -> None:
        super().__init__(data, queryset, request=request, **kwargs)
        # The search already applied to `queryset`; facet caches key on it.
        self.search_text = search_text
        user = getattr(request, "user", None)
        # The "mine" facet exists only for a logged-in user; otherwise it is ignored.
        self.user = user if user is not None and user.is_authenticated else None

    @cached_property
    def cleaned(self) -> dict:
        if not self.is_bound:
            return {}
        self.form.is_valid()  # ValueListField never fails; this only fills cleaned_data.
        return self.form.cleaned_data

    @cached_property
    def selection(self) -> Selection:
        """Resolve slugs and ids to rows: one UNION query if anything is selected, else none."""
        wanted_tags = {name: self.cleaned.get(name) or [] for name in TAG_FACETS}
        wanted_authors = self.cleaned.get("author") or []
        parts = []
        tag_condition = Q()
        for name, slugs in wanted_tags.items():
            if slugs:
                tag_condition |= Q(kind=TAG_FACETS[name], slug__in=slugs)
        if tag_condition:
            parts.append(
                Tag.objects.filter(tag_condition)
                .order_by()
                .values_list("kind", "pk", "slug", "name")
            )
        if wanted_authors:
            parts.append(
                Author.objects.filter(pk__in=wanted_authors)
                .order_by()
                .annotate(facet=Value("author"), no_slug=Value(""))
                .values_list("facet", "pk", "no_slug", "name")
            )
        rows = list(parts[0].union(*parts[1:], all=True)) if parts else []

        found_tags = {(kind, slug): (pk, name) for kind, pk, slug, name in rows if kind != "author"}
        found_authors = {pk: name for kind, pk, _slug, name in rows if kind == "author"}
        selection = Selection()
        for name, slugs in wanted_tags.items():
            selection.tags[name] = []
            for slug in slugs:
                hit = found_tags.get((TAG_FACETS[name], slug))
                if hit:
                    selection.tags[name].append(ResolvedTag(pk=hit[0], slug=slug, name=hit[1]))
                else:
                    selection.ignored.append(f"{name} “{slug}”")
        for pk in wanted_authors:
            if pk in found_authors:
                selection.authors.append(ResolvedAuthor(pk=pk, name=found_authors[pk]))
            else:
                selection.ignored.append(f"author #{pk}")
        selection.mine = (self.cleaned.get("mine") or []) if self.user else []
        # Invalid raw values (author=abc, bad slugs) are reported too.
        for name in [*TAG_FACETS, "author"]:
            kept = {str(v) for v in self.cleaned.get(name) or []}
            for raw in self.data.getlist(name) if hasattr(self.data, "getlist") else []:
                if raw.strip() and raw.strip() not in kept:
                    selection.ignored.append(f"{name} “{raw.strip()[:40]}”")
        return selection

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        return self.queryset_without(None, queryset)

    def queryset_without(
        self, facet: str | None, queryset: QuerySet | None = None, *, correlated: bool = False
    ) -> QuerySet:
        """Every facet applied but `facet`: the base for that facet's (disjunctive) counts.

        The first selected facet (authors and lab tags usually match fewest papers) becomes an
        IN list the database starts from; the others are checked per paper with EXISTS, so a
        broad facet such as "Poster" never has its 80,000 papers listed. `correlated` makes
        every facet an EXISTS check, for walking a sort index instead.
        """
        qs = self.queryset.all() if queryset is None else queryset
        leading = not correlated
        for name, filter_ in self.filters.items():
            if name == facet:
                continue
            condition = filter_.condition(correlated=not leading)
            if condition is not None:
                qs = qs.filter(condition)
                leading = False
        return qs

    def page_queryset(self, *, matches: int) -> QuerySet:
        """The filtered papers for reading one ordered page.

        With many matches, correlated EXISTS lets the database walk the sort index and stop
        after a page; with few, IN lists the matches first and sorts only those.
        """
        return self.queryset_without(None, correlated=matches > CORRELATED_FILTER_MIN_MATCHES)

    def is_active(self, facet: str) -> bool:
        if facet == "author":
            return bool(self.selection.authors)
        if facet == "mine":
            return bool(self.selection.mine)
        return bool(self.selection.tags.get(facet))


SORT_CHOICES = {"relevance": "Relevance", "title": "Title", "newest": "Newest imported"}
PER_PAGE_CHOICES = (10, 25, 50, 100)
DEFAULT_PER_PAGE = 25


@dataclass(frozen=True)
class ListingOptions:
    q: str
    sort: str
    per_page: int
    author_q: str


def _search_text(value) -> str:
    return " ".join(str(value).split())[:200]


def listing_options(params) -> ListingOptions:
    """Search text, sort, page size and author-name filter; anything invalid falls back.

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
    author_q = " ".join(str(params.get("author_q", "")).split())[:100]
    return ListingOptions(q=q, sort=sort, per_page=per_page or DEFAULT_PER_PAGE, author_q=author_q)
