"""What pages listing papers show of each paper: its first authors, how many more there are,
and its tags, each with its link.

One query reads a page's papers with them (`listed_papers`: PaperQuerySet.for_browsing's
`author_rows` and `tag_rows`, JSON rows of plain values); `with_listing` turns the rows into
links. Not as model instances: a page of 100 papers names up to 1,000 authors, and an
Authorship and an Author object for each, with each link reversed on its own, cost more than
the queries themselves.

The statement is compiled by the ORM once per page size, not per page: at 100,000 papers,
building and compiling the papers query with its three subqueries took longer than running it
(a page's papers, authors and tags: 5-8 ms in three queries, 1.2 ms on SQLite and 4.7 ms on
PostgreSQL in one precompiled; docs/performance.md).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence

from django.db import connection
from django.db.models.functions import Substr
from django.urls import reverse

from papers.links import Link
from papers.models import Paper, tag_label
from papers.querysets import LISTED_AUTHORS, TAG_KIND_LAST, TAG_KIND_RANK
from papers.routes import int_route

__all__ = ["LISTED_AUTHORS", "listed_papers", "with_listing"]


def listed_papers(ids: Sequence[int], *, tags: bool = True, excerpt: int = 0) -> list[Paper]:
    """The papers of `ids`, in that order, as listings show them (with_listing), and with the
    first `excerpt` characters of the abstract as `abstract_start` when asked; ids not found
    (a paper deleted since the search index listed it) are left out. One query."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return []
    sql, params, slots = _statement(connection.vendor, len(ids), tags, excerpt)
    bound = list(params)
    for slot, pk in zip(slots, ids, strict=True):
        bound[slot] = pk
    found = {paper.pk: paper for paper in Paper.objects.raw(sql, bound)}
    papers = [found[pk] for pk in ids if pk in found]
    for paper in papers:
        # A raw query applies no JSONField's conversion: the rows arrive as JSON text.
        paper.author_rows = _decoded(paper.author_rows)
        if tags:
            paper.tag_rows = _decoded(paper.tag_rows)
    return list(with_listing(papers, tags=tags))


@functools.lru_cache(maxsize=512)
def _statement(vendor: str, count: int, tags: bool, excerpt: int) -> tuple[str, tuple, list[int]]:
    """The SQL of for_browsing() over `count` ids, its parameters, and where in them the ids
    go. Compiled with `count` distinct negative ids, which no other parameter of it is, to
    find their places. `vendor` keys the cache: the SQL is the database's own."""
    placeholders = [-(n + 1) for n in range(count)]
    papers = Paper.objects.for_browsing(tags=tags).filter(pk__in=placeholders).order_by()
    if excerpt:
        papers = papers.annotate(abstract_start=Substr("abstract", 1, excerpt))
    sql, params = papers.query.sql_with_params()
    wanted = set(placeholders)
    where = {value: n for n, value in enumerate(params) if type(value) is int and value in wanted}
    if len(where) != count:
        raise AssertionError(f"the ids' {count} places were not found in {params!r}")
    return sql, tuple(params), [where[value] for value in placeholders]


def _decoded(rows: str | list | None) -> list:
    return json.loads(rows) if isinstance(rows, str) else rows or []


def with_listing(papers: Sequence[Paper], *, tags: bool = True) -> Sequence[Paper]:
    """Give each paper `listed_authors` (its first LISTED_AUTHORS authors in order, as Links)
    and, unless `tags` is off, `listed_tags` (venue, track, area, then lab tags by name), from
    the rows its query read (PaperQuerySet.for_browsing); no query."""
    author_url = int_route("papers:author")
    links: dict[int, Link] = {}  # one per tag: a venue is on every paper of a page
    for paper in papers:
        rows = sorted(paper.author_rows or ())
        paper.listed_authors = [Link(name, author_url(pk)) for _, pk, name in rows]
        if tags:
            paper.listed_tags = [_tag_link(row, links) for row in _in_tag_order(paper.tag_rows)]
    return papers


def _in_tag_order(rows: list | None) -> list:
    """[tag id, kind, slug, name] rows by kind (TAG_KIND_RANK), then name (by case only when
    the same), then id."""
    return sorted(rows or (), key=_tag_order)


def _tag_order(row: list) -> tuple:
    tag_id, kind, _, name = row
    return (TAG_KIND_RANK.get(kind, TAG_KIND_LAST), name.casefold(), name, tag_id)


def _tag_link(row: list, links: dict[int, Link]) -> Link:
    tag_id, kind, slug, name = row
    if tag_id not in links:
        links[tag_id] = Link(tag_label(kind, name), reverse("papers:tag", args=[kind, slug]), kind)
    return links[tag_id]
