"""The list page's facets as shown: the search index's counts with names from the database.

The counts come from the search index (papers/search/engine.py): exact and disjunctive, each
facet counted over the matches of every other facet but its own. Here they get their labels:
one query for the tags and one for the authors that are shown, whatever the catalogue's size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count

from papers.filters import (
    MINE_CHOICES,
    NOT_GIVEN_LABEL,
    NOT_GIVEN_SLUG,
    PDF_CHOICES,
    PDF_VALUES,
    TAG_FACETS,
    BrowseState,
)
from papers.models import Author, Tag
from papers.search.engine import NOT_GIVEN, NOT_GIVEN_FACETS, Facets

LAB_TAG_FACET_SIZE = 30
KEYWORD_FACET_SIZE = 20
AUTHOR_FACET_SIZE = 15

FACET_TITLES = {
    "venue": "Venue",
    "track": "Presentation track",
    "decision": "Decision",
    "author": "Authors",
    "area": "Primary area",
    "keyword": "Keywords",
    "tag": "Lab tags",
    "pdf": "PDF",
    "mine": "Mine",
}
# What "Not given" means in the facets that have it.
NOT_GIVEN_HINTS = {
    "venue": "“Not given”: papers whose sources name no venue.",
    "track": "“Not given”: papers whose sources name no track (most list only accepted "
    "papers' venue, not whether each is a poster or a talk).",
    "decision": "“Not given”: papers imported without their OpenReview decision (only notes "
    "saved with their replies carry it).",
}
# Poster, Spotlight, Oral read best in this order, not alphabetically.
_TRACK_ORDER = {"poster": 0, "spotlight": 1, "oral": 2}
# URL parameter -> the engine's facet name.
_ENGINE_FACETS = {
    "venue": "venue",
    "track": "track",
    "decision": "decision",
    "area": "area",
    "keyword": "keyword",
    "tag": "lab",
}
# Facets of data not every source has: left out of the page when nothing matches them.
_OPTIONAL_FACETS = {"area", "keyword"}
# Facets shown only when some paper has a value: "Not given" for every paper is left out.
_DECIDED_FACETS = {"decision"}
# Facets that list only their most frequent values (and the selected ones).
_CUT_FACETS = {"tag": LAB_TAG_FACET_SIZE, "keyword": KEYWORD_FACET_SIZE}


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
    """Venue, track, area, authors, keywords, lab tags and (logged in) mine, in the order the
    page shows them.

    `author_candidates`: the authors whose names match the page's "find an author" box, in
    the order to show them; None when the box is empty (the top authors are shown).
    `keyword_candidates` likewise for the "find a keyword" box.
    """
    facets = _tag_facets(counts, state, keyword_candidates)
    # Authors come after what a paper is (venue, track, area), before what it is about.
    position = sum(1 for facet in facets if facet.param in ("venue", "track", "decision", "area"))
    facets.insert(position, _author_facet(counts, state, author_candidates))
    if (pdf := _pdf_facet(counts, state)) is not None:
        facets.append(pdf)
    if state.logged_in:
        facets.append(_mine_facet(counts, state))
    return facets


def _tag_facets(
    counts: Facets, state: BrowseState, keyword_candidates: list[int] | None
) -> list[Facet]:
    wanted = {param: getattr(counts, name) for param, name in _ENGINE_FACETS.items()}
    if keyword_candidates is not None:  # the keyword box: its matches instead of the top
        wanted["keyword"] = {pk: wanted["keyword"].get(pk, 0) for pk in keyword_candidates}
    selected = {param: state.selection.ids(param) for param in TAG_FACETS}
    ids = set().union(*(set(found) for found in wanted.values()), *selected.values())
    tags = {tag.pk: tag for tag in Tag.objects.filter(pk__in=ids).only("slug", "name", "kind")}
    facets = []
    for param in TAG_FACETS:
        finding = param == "keyword" and keyword_candidates is not None
        if param in _OPTIONAL_FACETS and not (wanted[param] or selected[param] or finding):
            continue
        if param in _DECIDED_FACETS and not (set(wanted[param]) - {NOT_GIVEN} or selected[param]):
            continue  # a catalogue without reviews: "Not given" alone says nothing
        facet = Facet(param=param, title=FACET_TITLES[param])
        shown = dict(wanted[param])
        for pk in selected[param]:
            shown.setdefault(pk, 0)
        not_given = None
        for pk, count in shown.items():
            chosen = pk in selected[param]
            if not (count or chosen):
                continue
            if pk == NOT_GIVEN and param in NOT_GIVEN_FACETS:
                not_given = FacetValue(NOT_GIVEN_SLUG, NOT_GIVEN_LABEL, count, chosen)
            elif (tag := tags.get(pk)) is not None:
                facet.values.append(FacetValue(tag.slug, tag.label, count, chosen))
        if param == "track":
            facet.values.sort(key=lambda v: (_TRACK_ORDER.get(v.value, 9), v.label.casefold()))
        else:
            facet.values.sort(key=lambda v: (not v.selected, -v.count, v.label.casefold()))
        if not_given is not None:  # last, whatever its count: it is not a value like the others
            facet.values.append(not_given)
            facet.hint = NOT_GIVEN_HINTS[param]
        if param in _CUT_FACETS:
            facet.values = facet.values[: _CUT_FACETS[param]]
        facets.append(facet)
    return facets


def _author_facet(counts: Facets, state: BrowseState, candidates: list[int] | None) -> Facet:
    selected = state.selection.ids("author")
    if candidates is None:
        shown = list(counts.author.items())[:AUTHOR_FACET_SIZE]
    else:
        shown = [(pk, counts.author.get(pk, 0)) for pk in candidates]
        shown = [(pk, n) for pk, n in shown if n][:AUTHOR_FACET_SIZE]
    shown_ids = {pk for pk, _ in shown}
    shown += [(pk, counts.author.get(pk, 0)) for pk in selected if pk not in shown_ids]
    names = dict(Author.objects.filter(pk__in=[pk for pk, _ in shown]).values_list("pk", "name"))
    values = [
        FacetValue(str(pk), names[pk], count, pk in selected)
        for pk, count in shown
        if pk in names and (count or pk in selected)
    ]
    values.sort(key=lambda v: (not v.selected, -v.count, v.label.casefold()))
    return Facet(param="author", title=FACET_TITLES["author"], values=values)


def _pdf_facet(counts: Facets, state: BrowseState) -> Facet | None:
    """Has PDF / No PDF; left out while the site keeps no PDF of any paper listed (and
    nothing is selected): a facet with one value for every paper says nothing."""
    values = [
        FacetValue(value, label, counts.pdf.get(PDF_VALUES[value], 0), value in state.selection.pdf)
        for value, label in PDF_CHOICES.items()
    ]
    if not (counts.pdf.get(PDF_VALUES["yes"]) or state.selection.pdf):
        return None
    return Facet(param="pdf", title=FACET_TITLES["pdf"], values=values)


def _mine_facet(counts: Facets, state: BrowseState) -> Facet:
    return Facet(
        param="mine",
        title=FACET_TITLES["mine"],
        values=[
            FacetValue(value, label, counts.mine.get(value, 0), value in state.selection.mine)
            for value, label in MINE_CHOICES.items()
        ],
    )


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
    for name in (*FACET_TITLES, "author_q", "keyword_q", "page"):
        query.pop(name, None)
    return query
