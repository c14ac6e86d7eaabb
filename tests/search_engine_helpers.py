"""Indexes built in tmp_path and the database queries the search engine tests compare with.

Shared by the search engine's tests; tests/conftest.py's `index_of` fixture builds with
`build_index`.
"""

from __future__ import annotations

import tantivy
from django.db.models import Count

from papers.models import Authorship, Paper, PaperTag, TagKind
from papers.search import documents, engine, parse_query, schema
from papers.search.engine import BrowseQuery
from tests.factories import make_tag

VENUE, TRACK, LAB = TagKind.VENUE, TagKind.TRACK, TagKind.LAB
KEYWORD, AREA = TagKind.KEYWORD, TagKind.AREA
FACET_KINDS = {"venue": VENUE, "track": TRACK, "lab": LAB, "area": AREA}


def build_index(path, *, commit_every: int | None = None) -> tantivy.Searcher:
    """The whole catalogue indexed with a plain writer; `commit_every` makes several segments."""
    path.mkdir()
    index = schema.create_index(str(path))
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    for n, document in enumerate(documents.paper_documents(), start=1):
        writer.add_document(document)
        if commit_every and n % commit_every == 0:
            writer.commit()
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index.searcher()


def found(searcher, text: str, **fields) -> list[int]:
    """The ids a search for `text` finds (at most 100), in rank order."""
    query = BrowseQuery(parsed=parse_query(text), limit=100, **fields)
    return engine.search(searcher, query).ids


def tag_ids(kind, *names) -> set[int]:
    return {make_tag(name, kind).pk for name in names}


def db_matches(text: str | None, selection: dict[str, set[int]], mine=None):
    papers = Paper.objects.all()
    if text:
        papers = papers.filter(abstract__contains=text)
    for name, ids in selection.items():
        if not ids:
            continue
        links = Authorship.objects if name == "author" else PaperTag.objects
        key = "author_id__in" if name == "author" else "tag_id__in"
        papers = papers.filter(pk__in=links.filter(**{key: ids}).values("paper"))
    if mine is not None:
        papers = papers.filter(pk__in=mine)
    return papers


def db_facet_counts(text, selection, facet, mine=None) -> dict[int, int]:
    """GROUP BY counts of one facet over the papers matching every other facet."""
    base = db_matches(text, {k: v for k, v in selection.items() if k != facet}, mine)
    if facet == "author":
        links = Authorship.objects.filter(paper__in=base).values("author_id")
        rows = links.annotate(n=Count("paper_id")).values_list("author_id", "n")
    else:
        kind = KEYWORD if facet == "keyword" else FACET_KINDS[facet]
        links = PaperTag.objects.filter(paper__in=base, tag__kind=kind)
        rows = links.values("tag_id").annotate(n=Count("paper_id")).values_list("tag_id", "n")
    return dict(rows)


def browse(text, selection, **fields) -> BrowseQuery:
    return BrowseQuery(
        parsed=parse_query(text) if text else None,
        venue_ids=frozenset(selection.get("venue", ())),
        track_ids=frozenset(selection.get("track", ())),
        lab_ids=frozenset(selection.get("lab", ())),
        keyword_ids=frozenset(selection.get("keyword", ())),
        area_ids=frozenset(selection.get("area", ())),
        author_ids=frozenset(selection.get("author", ())),
        **fields,
    )


def expected_authors(counts: dict[int, int], top: int, selected: set[int]) -> dict[int, int]:
    ranked = sorted(((pk, n) for pk, n in counts.items() if n), key=lambda r: (-r[1], r[0]))
    chosen = dict(ranked[:top])
    return chosen | {pk: counts.get(pk, 0) for pk in sorted(selected) if pk not in chosen}
