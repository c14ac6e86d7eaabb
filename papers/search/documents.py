"""Search index documents read from the database, streamed in chunks of papers.

Each chunk costs three queries whatever its size (papers, authorships in author order, paper
tags with their kind), and a fourth when some of its papers have a stored PDF (their text),
so indexing a million papers holds one chunk in memory at a time and never runs a query per
paper. The PDFs' text (up to PDF_TEXT_MAX_CHARS a paper) streams through a cursor, a few
papers' at a time, rather than a chunk's at once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice

import tantivy
from django.conf import settings
from django.db.models import Count
from django.db.models.functions import Substr

from papers.facet_registry import TAG_FACETS
from papers.models import Authorship, Paper, PaperTag
from papers.search import document_fields, schema
from papers.search.greek import spelled_letters

CHUNK_SIZE = 2000
# A full build puts the ids of this many of the most prolific authors in POPULAR_AUTHOR_IDS too.
POPULAR_AUTHORS = 1000

# The index field of each tag kind a facet selects (papers.facet_registry), by TagKind value.
_TAG_FIELDS: dict[str, str] = {
    str(spec.tag_kind): str(spec.index_field) for spec in TAG_FACETS if spec.index_field
}


@dataclass(frozen=True)
class PaperRecord:
    """What the index holds of one paper, independent of where it was read from."""

    id: int
    title: str
    abstract: str
    created_at: datetime
    authors: Sequence[tuple[int, str]] = ()  # (author id, name) in author order
    tags: Sequence[tuple[int, str]] = ()  # (tag id, TagKind value)
    mean_rating: float | None = None  # the reviewers' (Paper.mean_rating)
    has_pdf: bool = False  # the site keeps its PDF (pdfs.PaperPdf)
    body: str = ""  # its PDF's text (pdfs.PdfText), pages apart by form feeds


def make_document(paper: PaperRecord, popular: frozenset[int] = frozenset()) -> tantivy.Document:
    """The paper's document; `popular`: the authors whose ids go in POPULAR_AUTHOR_IDS."""
    doc = tantivy.Document()
    doc.add_unsigned(schema.ID, paper.id)
    doc.add_text(schema.TITLE, paper.title)
    # A title's Unicode Greek letters also as LaTeX spells them ("αTC-VAE" is found as
    # "$\\alpha$TC-VAE" is: greek.py). Titles only: a second abstract value would show in snippets.
    if (spelled := spelled_letters(paper.title)) != paper.title:
        doc.add_text(schema.TITLE, spelled)
    doc.add_text(schema.ABSTRACT, paper.abstract)
    if paper.body:
        doc.add_text(schema.BODY, paper.body)
    doc.add_unsigned(schema.HAS_PDF, int(paper.has_pdf))
    # Unique ids only: a terms aggregation counts values, and a paper must count once.
    for author_id, name in dict(paper.authors).items():
        doc.add_unsigned(schema.AUTHOR_IDS, author_id)
        doc.add_text(schema.AUTHORS, name)
        if author_id in popular:
            doc.add_unsigned(schema.POPULAR_AUTHOR_IDS, author_id)
    for tag_id, kind in dict(paper.tags).items():
        if kind in _TAG_FIELDS:
            doc.add_unsigned(_TAG_FIELDS[kind], tag_id)
    title_key = schema.title_order_key(paper.title, paper.id)
    doc.add_text(schema.TITLE_ORDER, title_key)
    doc.add_unsigned(schema.TITLE_PREFIX, schema.title_prefix(title_key))
    doc.add_text(schema.NEWEST_ORDER, schema.newest_order_key(paper.created_at, paper.id))
    doc.add_unsigned(schema.CREATED, schema.created_micros(paper.created_at))
    doc.add_text(schema.RATING_ORDER, schema.rating_order_key(paper.mean_rating, paper.id))
    doc.add_unsigned(schema.RATING, schema.rating_code(paper.mean_rating))
    return doc


def popular_author_ids() -> frozenset[int]:
    """The POPULAR_AUTHORS authors with most papers in the database (ties by id)."""
    rows = (
        Authorship.objects.values("author_id")
        .annotate(papers=Count("paper_id"))
        .order_by("-papers", "author_id")
        .values_list("author_id", flat=True)
    )
    return frozenset(rows[:POPULAR_AUTHORS])


def paper_documents(
    paper_ids: Iterable[int] | None = None, popular: frozenset[int] | None = None
) -> Iterator[tantivy.Document]:
    """The index documents of these papers (None: every paper), in id order; `popular`: the
    authors whose ids go in POPULAR_AUTHOR_IDS (None: popular_author_ids(), for a full build;
    an update passes the index's own, counting.indexed_popular_authors).

    Ids of papers that no longer exist yield nothing: the caller deletes their documents. For a
    consistent snapshot across chunks, iterate inside a transaction with repeatable reads.
    """
    if popular is None:
        popular = popular_author_ids()
    # The PDF's row by its lookup name (papers never imports pdfs): one LEFT JOIN, one-to-one.
    papers = Paper.objects.order_by("pk").values_list(*document_fields.PAPER_COLUMNS)
    if paper_ids is None:
        # Keyset pagination on the primary key: each chunk starts after the last id seen, and
        # its links are read by id range (every paper in the range is in the chunk), which
        # walks the (paper, position) and (paper, tag) indexes without a 2,000-item IN list.
        last = 0
        while chunk := list(papers.filter(pk__gt=last)[:CHUNK_SIZE]):
            last = chunk[-1][0]
            in_chunk = {"paper_id__gte": chunk[0][0], "paper_id__lte": last}
            yield from _documents(chunk, in_chunk, popular)
            if len(chunk) < CHUNK_SIZE:
                return
        return
    wanted = iter(sorted({int(pk) for pk in paper_ids}))
    while ids := list(islice(wanted, CHUNK_SIZE)):
        if chunk := list(papers.filter(pk__in=ids)):
            yield from _documents(chunk, {"paper_id__in": [row[0] for row in chunk]}, popular)


def _documents(
    chunk: list[tuple], in_chunk: dict, popular: frozenset[int]
) -> Iterator[tantivy.Document]:
    authors: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for paper_id, author_id, name in (
        Authorship.objects.filter(**in_chunk)
        .order_by("paper_id", "position")
        .values_list(*document_fields.AUTHORSHIP_COLUMNS)
    ):
        authors[paper_id].append((author_id, name))
    tags: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for paper_id, tag_id, kind in (
        PaperTag.objects.filter(**in_chunk)
        .order_by()
        .values_list(*document_fields.PAPER_TAG_COLUMNS)
    ):
        tags[paper_id].append((tag_id, kind))
    bodies: Iterator[tuple[int, str]] = iter(())
    if any(row[-1] is not None for row in chunk):  # some paper has a stored PDF
        bodies = _bodies({key.replace("paper_id", "pk"): v for key, v in in_chunk.items()})
    body_id, body = next(bodies, (None, ""))
    for pk, title, abstract, created_at, mean_rating, pdf_id in chunk:  # PAPER_COLUMNS
        text = ""
        while body_id is not None and body_id <= pk:  # both in id order
            text = body if body_id == pk else text
            body_id, body = next(bodies, (None, ""))
        yield make_document(
            PaperRecord(
                id=pk,
                title=title,
                abstract=abstract,
                created_at=created_at,
                authors=authors.get(pk, ()),
                tags=tags.get(pk, ()),
                mean_rating=mean_rating,
                has_pdf=pdf_id is not None,
                body=text,
            ),
            popular,
        )


def _bodies(in_chunk: dict) -> Iterator[tuple[int, str]]:
    """(paper id, its PDF's text) of the chunk's papers that have some, in id order, at most
    PDF_TEXT_MAX_CHARS characters each (a lowered limit applies to text read before)."""
    text = Substr("pdf_file__text__text", 1, settings.PDF_TEXT_MAX_CHARS)
    rows = (
        Paper.objects.filter(**in_chunk, pdf_file__text__page_count__gt=0)
        .order_by("pk")
        .values_list("pk", text)
    )
    return rows.iterator(chunk_size=20)
