"""Facet counts for the paper list: GROUP BY queries on the through tables, never loops over papers.

Counts are disjunctive: each facet is counted over the papers matching the search and every
other facet, but not its own, so ticking a second venue widens the list the way its count says.
Queries per request, whatever is selected:
  - tag facets (venue, track, lab tags): one UNION ALL of GROUP BY queries over PaperTag, one
    part per distinct base (kinds with nothing selected share the fully filtered base);
  - author facet: one query; the top authors are picked by an index-only GROUP BY on Authorship
    in a subquery, names and counts are read for those few authors only;
  - the total and the "mine" counts share one aggregate query (see `count_with_mine`).

At 100,000 papers a count over a broad selection (e.g. every Poster, 80% of the catalogue)
touches hundreds of thousands of index entries. Such large counts of imported data (totals,
venue/track and author counts) are kept in an in-process cache for FACET_CACHE_SECONDS (60 s):
they change only when an import, a merge or a curator edit runs, and a minute's lag in a count
in the thousands is invisible. Small counts, lab tags (members add them all the time) and
anything personal ("mine") are always counted live.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from django.db import connection
from django.db.models import Case, Count, Exists, OuterRef, Q, Value, When

from papers.filters import MINE_CHOICES, TAG_FACETS, PaperFilter, mine_condition
from papers.models import Author, Authorship, PaperTag, TagKind
from papers.text import normalize_author_name

AUTHOR_FACET_SIZE = 15
LAB_TAG_FACET_SIZE = 30
# Counts from bases at least this large are cached (see the module docstring).
AUTHOR_CACHE_MIN_COUNT = 100
TAG_CACHE_MIN_COUNT = 1000
TOTAL_CACHE_MIN_COUNT = 2000
# In-process (not the database-backed default cache): a cache hit must cost no query.
_counts_cache = LocMemCache("papers-facets", {"OPTIONS": {"MAX_ENTRIES": 2000}})


def _cache_key(part: str, filterset: PaperFilter, searched: bool, **extra) -> str | None:
    """Key for counts that depend only on the public selection; None when "mine" is active."""
    if filterset.is_active("mine"):
        return None
    state = {
        "q": filterset.search_text if searched else "",
        "authors": sorted(author.pk for author in filterset.selection.authors),
        **{name: sorted(tag.pk for tag in tags) for name, tags in filterset.selection.tags.items()},
        **extra,
    }
    digest = hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()
    return f"{part}:{connection.vendor}:{connection.settings_dict['NAME']}:{digest}"


def _cache_get(key: str | None):
    return _counts_cache.get(key) if key else None


def _cache_set(key: str | None, value) -> None:
    if key:
        _counts_cache.set(key, value, settings.FACET_CACHE_SECONDS)


def clear_count_cache() -> None:
    _counts_cache.clear()


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
    cache_key = _cache_key("tags", filterset, searched)
    cached_rows = _cache_get(cache_key)
    live = TAG_FACETS if cached_rows is None else {"tag": TAG_FACETS["tag"]}
    rows = _tag_counts(filterset, searched, live)
    if cached_rows is None:
        imported = [row for row in rows if row[0] != TAG_FACETS["tag"]]
        if imported and max(row[3] for row in imported) >= TAG_CACHE_MIN_COUNT:
            _cache_set(cache_key, imported)
    else:
        rows += cached_rows
    selected = {
        (TAG_FACETS[name], tag.slug)
        for name, tags in filterset.selection.tags.items()
        for tag in tags
    }
    facets = {name: Facet(param=name, title=FACET_TITLES[name]) for name in TAG_FACETS}
    facet_by_kind = {kind: facets[name] for name, kind in TAG_FACETS.items()}
    for kind, slug, name, count in rows:
        is_selected = (kind, slug) in selected
        if count or is_selected:
            facet_by_kind[kind].values.append(FacetValue(slug, name, count, is_selected))
    # A selected tag without any paper among the other facets still shows, with 0.
    counted = {(kind, slug) for kind, slug, _name, _count in rows}
    for facet_name, tags in filterset.selection.tags.items():
        kind = TAG_FACETS[facet_name]
        for tag in tags:
            if (kind, tag.slug) not in counted:
                facet_by_kind[kind].values.append(FacetValue(tag.slug, tag.name, 0, True))
    for facet in facets.values():
        if facet.param == "track":
            facet.values.sort(key=lambda v: (_TRACK_ORDER.get(v.value, 9), v.label.casefold()))
        else:
            facet.values.sort(key=lambda v: (not v.selected, -v.count, v.label.casefold()))
        if facet.param == "tag":
            facet.values = facet.values[:LAB_TAG_FACET_SIZE]
    return list(facets.values())


def _tag_counts(
    filterset: PaperFilter, searched: bool, facets: dict[str, str]
) -> list[tuple[str, str, str, int]]:
    """(kind, slug, name, papers) per tag: one UNION ALL of GROUP BY queries over PaperTag.

    Each group of kinds sharing a base is counted from the links of the papers in that base,
    so a narrow selection reads few links; unfiltered, each tag's links are counted on the
    (tag, paper) index. Lab-tag links are sparse: without a search, each one's paper is
    checked with EXISTS rather than listing the base (a per-link full-text match would cost
    more, so searches list the base).
    """
    unselected = [kind for name, kind in facets.items() if not filterset.is_active(name)]
    groups: list[tuple[str | None, list[str]]] = []
    dense = [kind for kind in unselected if kind != TagKind.LAB]
    if dense:
        groups.append((None, dense))
    if TagKind.LAB in unselected:
        groups.append((None, [TagKind.LAB]))
    groups += [(name, [kind]) for name, kind in facets.items() if filterset.is_active(name)]
    parts = []
    for facet, kinds in groups:
        links = PaperTag.objects.filter(tag__kind__in=kinds)
        if _narrowed(filterset, searched, facet):
            if kinds == [TagKind.LAB] and not searched:
                base = filterset.queryset_without(facet, correlated=True)
                links = links.filter(Exists(base.filter(pk=OuterRef("paper_id"))))
            else:
                links = links.filter(paper_id__in=filterset.queryset_without(facet).values("pk"))
        parts.append(
            links.order_by()
            .values("tag__kind", "tag__slug", "tag__name")
            .annotate(n=Count("paper_id"))
            .values_list("tag__kind", "tag__slug", "tag__name", "n")
        )
    return list(parts[0].union(*parts[1:], all=True)) if len(parts) > 1 else list(parts[0])


def author_facet(filterset: PaperFilter, *, searched: bool, author_q: str = "") -> Facet:
    """The most frequent authors among the matching papers (plus any selected), in one query.

    Counts over a large base (hundreds of papers per top author) are cached for a minute: one
    pass over most of the ~700k authorship rows is the costliest query of the page, and an
    author's count on a big catalogue moves only when an import or a merge runs.
    """
    selected_ids = [author.pk for author in filterset.selection.authors]
    name_part = normalize_author_name(author_q) if author_q else ""
    cache_key = _cache_key("authors", filterset, searched, author_q=name_part)
    rows = _cache_get(cache_key)
    if rows is None:
        rows = _author_counts(filterset, searched, name_part, selected_ids)
        if rows and max(n for _, _, n in rows) >= AUTHOR_CACHE_MIN_COUNT:
            _cache_set(cache_key, rows)
    chosen = set(selected_ids)
    values = [
        FacetValue(str(pk), name, count, pk in chosen)
        for pk, name, count in rows
        if count or pk in chosen
    ]
    values.sort(key=lambda v: (not v.selected, -v.count, v.label.casefold()))
    return Facet(param="author", title=FACET_TITLES["author"], values=values)


def _author_counts(
    filterset: PaperFilter, searched: bool, name_part: str, selected_ids: list[int]
) -> list[tuple[int, str, int]]:
    shares = Authorship.objects.order_by()
    if _narrowed(filterset, searched, "author"):
        shares = shares.filter(paper__in=filterset.queryset_without("author").values("pk"))
    if name_part:
        matching = Author.objects.filter(normalized_name__contains=name_part).values("pk")
        shares = shares.filter(Q(author_id__in=matching) | Q(author_id__in=selected_ids))
    # One GROUP BY author_id pass (index-only on the author/paper index when unfiltered);
    # selected authors sort first so their counts come from the same pass.
    order = ["-n", "author_id"]
    if selected_ids:
        order.insert(0, Case(When(author_id__in=selected_ids, then=Value(0)), default=Value(1)))
    ranked = (
        shares.values("author_id")
        .annotate(n=Count("paper"))
        .order_by(*order)[: AUTHOR_FACET_SIZE + len(selected_ids)]
    )
    counted = _with_names(ranked)
    # Selected authors without any paper among the others facets still get a (zero) row.
    seen = {pk for pk, _, _ in counted}
    counted += [(a.pk, a.name, 0) for a in filterset.selection.authors if a.pk not in seen]
    return counted


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


def count_with_mine(filterset: PaperFilter, *, searched: bool) -> tuple[int, Facet | None]:
    """The number of matching papers and, for a logged-in user, the "mine" facet: one query.

    Both are counted over the papers matching every facet but "mine"; the total then applies
    the selected "mine" values through a filtered COUNT instead of a second query.
    """
    user = filterset.user
    if user is None:
        cache_key = _cache_key("total", filterset, searched)
        total = _cache_get(cache_key)
        if total is None:
            total = filterset.qs.count()
            if total >= TOTAL_CACHE_MIN_COUNT:
                _cache_set(cache_key, total)
        return total, None
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
            remaining = [other for other in chosen if other != value.value]
            if remaining:
                query.setlist(facet.param, remaining)
            else:
                query.pop(facet.param, None)
            query.pop("page", None)
            chips.append({"facet": facet.title, "label": value.label, "query": query})
    return chips


def cleared_query(params):
    """The current query string with every facet (and the author box) removed."""
    query = params.copy()
    for name in (*FACET_TITLES, "author_q", "page"):
        query.pop(name, None)
    return query
