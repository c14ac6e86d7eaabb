"""The list page's facets as shown: the search index's counts with names from the database.

The counts come from the search index (papers/search/engine.py): exact and disjunctive, each
facet counted over the matches of every other facet but its own. Here they get their labels:
one query for the tags and one for the authors that are shown, whatever the catalogue's size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count

from papers.facet_registry import (
    BY_PARAM,
    FACETS,
    NOT_GIVEN_LABEL,
    NOT_GIVEN_SLUG,
    FacetSpec,
    Resolves,
)
from papers.filters import RATING_PARAMS, BrowseState, ListingOptions
from papers.models import Author, Tag
from papers.search.engine import NOT_GIVEN, Facets


@dataclass
class FacetValue:
    value: str
    label: str
    count: int
    selected: bool = False


@dataclass
class Facet:
    param: str
    title: str
    values: list[FacetValue] = field(default_factory=list)
    hint: str = ""


def listing_facets(
    counts: Facets,
    state: BrowseState,
    *,
    author_candidates: list[int] | None = None,
    keyword_candidates: list[int] | None = None,
) -> list[Facet]:
    """The facets of papers.facet_registry.FACETS the page shows, in that order: those
    left out are optional or undecided ones with nothing to show, and those of a logged-in
    member for a visitor.

    `author_candidates`: the authors whose names match the page's "find an author" box, in
    the order to show them; None when the box is empty (the top authors are shown).
    `keyword_candidates` likewise for the "find a keyword" box.
    """
    tags = _tag_facets(counts, state, keyword_candidates)
    facets = []
    for spec in FACETS:
        if spec.logged_in_only and not state.logged_in:
            continue
        if spec.resolves == Resolves.TAG:
            facet = tags.get(spec.param)
        elif spec.resolves == Resolves.AUTHOR:
            facet = _author_facet(spec, counts, state, author_candidates)
        else:
            facet = _choice_facet(spec, counts, state)
        if facet is not None:
            facets.append(facet)
    return facets


def _tag_facets(
    counts: Facets, state: BrowseState, keyword_candidates: list[int] | None
) -> dict[str, Facet]:
    """The tag facets shown, by parameter: their tags read in one query."""
    specs = [spec for spec in FACETS if spec.resolves == Resolves.TAG]
    wanted = {spec.param: getattr(counts, spec.engine_name) for spec in specs}
    if keyword_candidates is not None:  # the keyword box: its matches instead of the top
        wanted["keyword"] = {pk: wanted["keyword"].get(pk, 0) for pk in keyword_candidates}
    selected = {spec.param: state.selection.ids(spec.param) for spec in specs}
    ids = set().union(*(set(found) for found in wanted.values()), *selected.values())
    tags = {tag.pk: tag for tag in Tag.objects.filter(pk__in=ids).only("slug", "name", "kind")}
    facets = {}
    for spec in specs:
        param = spec.param
        finding = bool(spec.find_param) and keyword_candidates is not None
        if spec.optional and not (wanted[param] or selected[param] or finding):
            continue
        if spec.decided and not (set(wanted[param]) - {NOT_GIVEN} or selected[param]):
            continue
        facet = Facet(param=param, title=spec.title)
        shown = dict(wanted[param])
        for pk in selected[param]:
            shown.setdefault(pk, 0)
        not_given = None
        for pk, count in shown.items():
            chosen = pk in selected[param]
            if not (count or chosen):
                continue
            if pk == NOT_GIVEN and spec.has_not_given:
                not_given = FacetValue(NOT_GIVEN_SLUG, NOT_GIVEN_LABEL, count, chosen)
            elif (tag := tags.get(pk)) is not None:
                facet.values.append(FacetValue(tag.slug, tag.label, count, chosen))
        if spec.value_order:
            order = spec.value_order
            facet.values.sort(key=lambda v: (order.get(v.value, len(order)), v.label.casefold()))
        else:
            facet.values.sort(key=lambda v: (not v.selected, -v.count, v.label.casefold()))
        if not_given is not None:  # last, whatever its count: it is not a value like the others
            facet.values.append(not_given)
            facet.hint = spec.not_given_hint
        if spec.cut is not None:
            facet.values = facet.values[: spec.cut]
        facets[param] = facet
    return facets


def _author_facet(
    spec: FacetSpec, counts: Facets, state: BrowseState, candidates: list[int] | None
) -> Facet:
    selected = state.selection.ids(spec.param)
    size = spec.cut
    if candidates is None:
        shown = list(counts.author.items())[:size]
    else:
        shown = [(pk, counts.author.get(pk, 0)) for pk in candidates]
        shown = [(pk, n) for pk, n in shown if n][:size]
    shown_ids = {pk for pk, _ in shown}
    shown += [(pk, counts.author.get(pk, 0)) for pk in selected if pk not in shown_ids]
    names = dict(Author.objects.filter(pk__in=[pk for pk, _ in shown]).values_list("pk", "name"))
    values = [
        FacetValue(str(pk), names[pk], count, pk in selected)
        for pk, count in shown
        if pk in names and (count or pk in selected)
    ]
    values.sort(key=lambda v: (not v.selected, -v.count, v.label.casefold()))
    return Facet(param=spec.param, title=spec.title, values=values)


def _choice_facet(spec: FacetSpec, counts: Facets, state: BrowseState) -> Facet | None:
    """A facet of fixed choices (Has PDF / No PDF; in my lists / has my note), counted in the
    index by the choice's index value or, without one, by the choice itself (mine). A decided
    facet is left out while no paper listed has its first choice and nothing is selected."""
    found = getattr(counts, spec.engine_name)
    chosen = state.selection.values(spec)

    def count(value: str) -> int:
        return found.get(spec.index_values[value] if spec.index_values else value, 0)

    if spec.decided and not (count(next(iter(spec.choices))) or chosen):
        return None
    values = [
        FacetValue(value, label, count(value), value in chosen)
        for value, label in spec.choices.items()
        if value not in spec.quiet_choices or count(value) or value in chosen
    ]
    return Facet(param=spec.param, title=spec.title, values=values)


def top_authors(shares, *, limit: int) -> list[tuple[int, str, int]]:
    """(author id, name, papers) of the authors most frequent among `shares` (Authorship rows)."""
    ranked = (
        shares.order_by().values("author_id").annotate(n=Count("paper")).order_by("-n", "author_id")
    )
    return sorted(_with_names(ranked[:limit]), key=lambda row: (-row[2], row[1].casefold()))


def _with_names(ranked) -> list[tuple[int, str, int]]:
    """Join author names to a small ranked (author_id, n) query: one query, names read last.

    Grouping by the author id alone keeps the count index-only; joining names before grouping
    would read the author row for every authorship. The ORM cannot join a derived table.
    """
    sql, params = ranked.query.sql_with_params()
    author_table = connection.ops.quote_name(Author._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT ranked.author_id, a.name, ranked.n FROM ({sql}) ranked "  # noqa: S608
            f"INNER JOIN {author_table} a ON a.id = ranked.author_id",
            params,
        )
        return [(pk, name, n) for pk, name, n in cursor.fetchall()]


def selection_chips(
    facets: list[Facet], params, options: ListingOptions | None = None
) -> list[dict]:
    """One removable chip per selected value (and for the mean rating's range, from
    `options`): its label and the query string without it."""
    chips = _rating_chips(options, params) if options is not None else []
    for facet in facets:
        chosen = [value.value for value in facet.values if value.selected]
        for value in facet.values:
            if not value.selected:
                continue
            query = params.copy()
            remaining = [other for other in chosen if other != value.value]
            if remaining:
                query.setlist(facet.param, remaining)
            else:
                query.pop(facet.param, None)
            query.pop("page", None)
            chips.append({"facet": facet.title, "label": value.label, "query": query})
    return chips


def _rating_chips(options: ListingOptions, params) -> list[dict]:
    lowest, highest = options.rating_range
    if lowest is None and highest is None:
        return []
    if highest is None:
        label = f"at least {lowest:g}"
    elif lowest is None:
        label = f"at most {highest:g}"
    else:
        label = f"{lowest:g} to {highest:g}"
    query = params.copy()
    for name in (*RATING_PARAMS, "page"):
        query.pop(name, None)
    return [{"facet": "Mean rating", "label": label, "query": query}]


def cleared_query(params):
    """The current query string with every facet (the find boxes and the rating range too)
    removed."""
    query = params.copy()
    find_boxes = [spec.find_param for spec in FACETS if spec.find_param]
    for name in (*BY_PARAM, *find_boxes, *RATING_PARAMS, "page"):
        query.pop(name, None)
    return query
