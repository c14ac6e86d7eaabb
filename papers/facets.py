"""Facet counts for the paper list: GROUP BY queries on the through tables, never loops over papers.

Counts are disjunctive: each facet is counted over the papers matching the search and every
other facet, but not its own, so ticking a second venue widens the list the way its count says.
Queries per request, whatever is selected:
  - tag facets (venue, track, lab tags): one query over Tag LEFT JOIN PaperTag, each kind's count
    filtered by its own base (kinds with nothing selected share the fully filtered base);
  - author facet: one query; the top authors are picked by an index-only GROUP BY on Authorship
    in a subquery, names and counts are read for those few authors only;
  - the total and the "mine" counts share one aggregate query (see `count_with_mine`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Q

from papers.filters import MINE_CHOICES, TAG_FACETS, PaperFilter, mine_condition
from papers.models import Author, Authorship, Tag
from papers.text import normalize_author_name

AUTHOR_FACET_SIZE = 15
LAB_TAG_FACET_SIZE = 30

FACET_TITLES = {
    "venue": "Venue",
    "track": "Presentation track",
    "author": "Authors",
    "tag": "Lab tags",
    "mine": "Mine",
}
# Poster, Spotlight, Oral read best in this order, not alphabetically.
_TRACK_ORDER = {"poster": 0, "spotlight": 1, "oral": 2}


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

    @property
    def has_selection(self) -> bool:
        return any(value.selected for value in self.values)


def _narrowed(filterset: PaperFilter, searched: bool, without: str | None) -> bool:
    """Whether the base for a facet's counts is smaller than the whole catalogue."""
    return searched or any(
        filterset.is_active(name) for name in filterset.filters if name != without
    )


def tag_facets(filterset: PaperFilter, *, searched: bool) -> list[Facet]:
    """Venue, track and lab-tag facets with disjunctive counts, in one query."""
    kinds_by_facet = {name: kind for name, kind in TAG_FACETS.items()}
    unselected = [kind for name, kind in kinds_by_facet.items() if not filterset.is_active(name)]
    condition = Q()
    if unselected:
        part = Q(kind__in=unselected)
        if _narrowed(filterset, searched, None):
            part &= Q(paper_tags__paper__in=filterset.qs.values("pk"))
        condition |= part
    for name, kind in kinds_by_facet.items():
        if filterset.is_active(name):
            part = Q(kind=kind)
            if _narrowed(filterset, searched, name):
                base = filterset.queryset_without(name)
                part &= Q(paper_tags__paper__in=base.values("pk"))
            condition |= part
    # Counting paper ids (in the tag/paper index) rather than link ids keeps the scan index-only.
    rows = (
        Tag.objects.filter(kind__in=kinds_by_facet.values())
        .order_by()
        .annotate(n=Count("paper_tags__paper", filter=condition))
        .values_list("kind", "slug", "name", "n")
    )
    selected = {
        (TAG_FACETS[name], tag.slug)
        for name, tags in filterset.selection.tags.items()
        for tag in tags
    }
    facets = {name: Facet(param=name, title=FACET_TITLES[name]) for name in kinds_by_facet}
    facet_by_kind = {kind: facets[name] for name, kind in kinds_by_facet.items()}
    for kind, slug, name, count in rows:
        is_selected = (kind, slug) in selected
        if count or is_selected:
            facet_by_kind[kind].values.append(FacetValue(slug, name, count, is_selected))
    for facet in facets.values():
        if facet.param == "track":
            facet.values.sort(key=lambda v: (_TRACK_ORDER.get(v.value, 9), v.label.casefold()))
        else:
            facet.values.sort(key=lambda v: (not v.selected, -v.count, v.label.casefold()))
        if facet.param == "tag":
            facet.values = facet.values[:LAB_TAG_FACET_SIZE]
    return list(facets.values())


def author_facet(filterset: PaperFilter, *, searched: bool, author_q: str = "") -> Facet:
    """The most frequent authors among the matching papers (plus any selected), in one query."""
    narrowed = _narrowed(filterset, searched, "author")
    base = filterset.queryset_without("author").values("pk") if narrowed else None
    shares = Authorship.objects.order_by()
    if base is not None:
        shares = shares.filter(paper__in=base)
    name_part = normalize_author_name(author_q) if author_q else ""
    if name_part:
        matching = Author.objects.filter(normalized_name__contains=name_part).values("pk")
        shares = shares.filter(author_id__in=matching)
    # GROUP BY author_id alone reads only the (author, paper) index; the LIMIT keeps it short.
    top_ids = (
        shares.values("author_id")
        .annotate(n=Count("paper"))
        .order_by("-n", "author_id")
        .values("author_id")[:AUTHOR_FACET_SIZE]
    )
    selected_ids = [author.pk for author in filterset.selection.authors]
    count_filter = Q(authorships__paper__in=base) if base is not None else None
    rows = (
        Author.objects.filter(Q(pk__in=top_ids) | Q(pk__in=selected_ids))
        .order_by()
        .annotate(n=Count("authorships__paper", filter=count_filter))
        .values_list("pk", "name", "n")
    )
    chosen = set(selected_ids)
    values = [
        FacetValue(str(pk), name, count, pk in chosen)
        for pk, name, count in rows
        if count or pk in chosen
    ]
    values.sort(key=lambda v: (not v.selected, -v.count, v.label.casefold()))
    return Facet(param="author", title=FACET_TITLES["author"], values=values)


def count_with_mine(filterset: PaperFilter) -> tuple[int, Facet | None]:
    """The number of matching papers and, for a logged-in user, the "mine" facet: one query.

    Both are counted over the papers matching every facet but "mine"; the total then applies
    the selected "mine" values through a filtered COUNT instead of a second query.
    """
    user = filterset.user
    if user is None:
        return filterset.qs.count(), None
    base = filterset.queryset_without("mine")
    conditions = {value: mine_condition(value, user) for value in MINE_CHOICES}
    selected = filterset.selection.mine
    total_filter = None
    if selected:
        total_filter = Q()
        for value in selected:
            total_filter |= conditions[value]
    counts = base.order_by().aggregate(
        total=Count("pk", filter=total_filter),
        **{value: Count("pk", filter=condition) for value, condition in conditions.items()},
    )
    facet = Facet(
        param="mine",
        title=FACET_TITLES["mine"],
        values=[
            FacetValue(value, label, counts[value], value in selected)
            for value, label in MINE_CHOICES.items()
        ],
    )
    return counts["total"], facet


def ordered_facets(tag_facet_list: list[Facet], authors: Facet, mine: Facet | None) -> list[Facet]:
    by_param = {facet.param: facet for facet in tag_facet_list}
    ordered = [by_param["venue"], by_param["track"], authors, by_param["tag"]]
    if mine is not None:
        ordered.append(mine)
    return ordered


def selection_chips(facets: list[Facet], params) -> list[dict]:
    """One removable chip per selected value: its label and the query string without it."""
    chips = []
    for facet in facets:
        chosen = [value.value for value in facet.values if value.selected]
        for value in facet.values:
            if not value.selected:
                continue
            query = params.copy()
            query.setlist(facet.param, [other for other in chosen if other != value.value])
            query.pop("page", None)
            chips.append({"facet": facet.title, "label": value.label, "query": query})
    return chips


def cleared_query(params):
    """The current query string with every facet (and the author box) removed."""
    query = params.copy()
    for name in (*FACET_TITLES, "author_q", "page"):
        query.pop(name, None)
    return query
