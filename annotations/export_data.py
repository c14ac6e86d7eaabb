"""What an export writes of a paper, read from the database a batch at a time.

The formats (annotations.exports) read a paper through `ExportPaper`: plain values, no model
instances. A whole-catalogue export spent half its time building Paper, PaperTag and Tag
instances and following prefetches; reading `values_list` rows into these records is several
times cheaper, so the writer, not the reading, sets an export's pace. Three queries per batch
(papers, their venue/track/keyword tags, their authors), memory flat whatever the total.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from django.db.models import Q

from annotations.models import Priority, ReadingList, ReadingListItem, ReadingStatus
from papers.arxiv_categories import category_label
from papers.models import Author, Authorship, Paper, PaperTag, TagKind

BATCH_SIZE = 1000
# Ids in one `IN (...)` list: well under SQLite's limit on a statement's parameters.
_IN_LIST_MAX = 900
# Author names an export keeps: beyond this (a catalogue of several hundred thousand authors)
# it starts again rather than grow.
_NAMES_KEPT = 200_000
# The tag kinds a file names: the venue (booktitle, container), the track (CSV), keywords and
# the area (an arXiv paper's primary category: a preprint's primaryClass).
_EXPORTED_KINDS = (TagKind.VENUE, TagKind.TRACK, TagKind.KEYWORD, TagKind.AREA)
_PAPER_FIELDS = (
    "pk",
    "title",
    "abstract",
    "forum_url",
    "pdf_url",
    "doi",
    "arxiv_id",
    "year",
    "publication_type",
)
_STATUS_LABELS = dict(ReadingStatus.choices)
_PRIORITY_LABELS = dict(Priority.choices)


@dataclass(slots=True)
class ExportPaper:
    """One paper as the export formats read it. `venue` and `track` are the first such tag by
    name (a paper normally has one), `keywords` every keyword by name, `authors` every
    author's name in order."""

    pk: int
    title: str
    abstract: str = ""
    forum_url: str = ""
    pdf_url: str = ""
    doi: str = ""
    arxiv_id: str = ""
    year: int | None = None
    publication_type: str = ""  # papers.choices.PublicationType, "" when no source said
    authors: list[str] = field(default_factory=list)
    venue: str = ""
    track: str = ""
    keywords: list[str] = field(default_factory=list)
    primary_class: str = ""
    # The member's own notes, when the export asks for them (annotations.export_notes).
    note: str = ""

    @classmethod
    def of(cls, paper: Paper) -> ExportPaper:
        """A Paper instance with its tags prefetched (paper.paper_tags with their tag) and its
        authors' names as `paper.author_list`: for a single paper, the Cite box's."""
        record = cls(
            pk=paper.pk,
            title=paper.title,
            abstract=paper.abstract,
            forum_url=paper.forum_url,
            pdf_url=paper.pdf_url,
            doi=paper.doi,
            arxiv_id=paper.arxiv_id,
            year=paper.year,
            publication_type=paper.publication_type,
            authors=list(paper.author_list),
        )
        tags = sorted((row.tag.name, row.tag.kind) for row in paper.paper_tags.all())
        for name, kind in tags:
            record.add_tag(kind, name)
        return record

    def add_tag(self, kind: str, name: str) -> None:
        """Tags must come in name order: the first venue and track are kept."""
        if kind == TagKind.VENUE:
            self.venue = self.venue or name
        elif kind == TagKind.TRACK:
            self.track = self.track or name
        elif kind == TagKind.KEYWORD:
            self.keywords.append(name)
        elif kind == TagKind.AREA and not self.primary_class and category_label(name):
            self.primary_class = name


@dataclass(frozen=True, slots=True)
class Row:
    """One paper of an export, and its reading-list status and priority labels when the
    export is a list's (`list_cells`, None otherwise)."""

    paper: ExportPaper
    list_cells: tuple[str, str] | None = None


def list_cells(status: str, priority: int | None) -> tuple[str, str]:
    """A reading-list item's status and priority as the CSV's columns show them."""
    return _STATUS_LABELS.get(status, status), _PRIORITY_LABELS.get(
        priority, ""
    ) if priority else ""


def row_of_item(item: ReadingListItem) -> Row:
    """A reading-list item already loaded, with its paper's tags prefetched and authors as
    `paper.author_list` (selectors.list_items_for_export)."""
    return Row(ExportPaper.of(item.paper), list_cells(item.status, item.priority))


def _ids_lookup(field: str, paper_ids: Sequence[int]) -> Q:
    """`field` among `paper_ids`: as a range when they are dense (a whole catalogue's or a
    track's batch), else as a list. A range reads at most twice the rows asked for (callers
    keep only the wanted ones) and spares building and matching a thousand-value IN list."""
    low, high = min(paper_ids), max(paper_ids)
    if high - low < 2 * len(paper_ids):
        return Q(**{f"{field}__gte": low, f"{field}__lte": high})
    return Q(**{f"{field}__in": paper_ids})


class AuthorNames:
    """Author names by id, each read once per export.

    Reading a batch's authorships with their names made the database join every batch to the
    whole author table (PostgreSQL hashed all 54,000 authors of a 100,000-paper catalogue a
    hundred times over, half the reading time); authors recur across batches, so their names
    are read by id, only for the ids not seen yet.
    """

    def __init__(self) -> None:
        self._names: dict[int, str] = {}

    def of(self, author_ids: Iterable[int]) -> dict[int, str]:
        """A mapping holding the name of every author of `author_ids` that still exists."""
        missing = list(set(author_ids).difference(self._names))
        if len(self._names) + len(missing) > _NAMES_KEPT:
            self._names.clear()
            missing = list(set(author_ids))
        for start in range(0, len(missing), _IN_LIST_MAX):
            chunk = missing[start : start + _IN_LIST_MAX]
            self._names.update(Author.objects.filter(pk__in=chunk).values_list("pk", "name"))
        return self._names


def papers_by_id(
    paper_ids: Sequence[int], author_names: AuthorNames | None = None
) -> dict[int, ExportPaper]:
    """The papers of `paper_ids` that still exist, with authors and exported tags: three
    queries, and one per 900 authors that `author_names` has not read yet."""
    if not paper_ids:
        return {}
    wanted = set(paper_ids)
    papers = {
        pk: ExportPaper(pk, title, abstract, forum, pdf, doi, arxiv, year, kind)
        for pk, title, abstract, forum, pdf, doi, arxiv, year, kind in Paper.objects.filter(
            _ids_lookup("pk", paper_ids)
        )
        .order_by()
        .values_list(*_PAPER_FIELDS)
        if pk in wanted
    }
    tags = (
        PaperTag.objects.filter(_ids_lookup("paper", paper_ids), tag__kind__in=_EXPORTED_KINDS)
        .order_by("paper_id", "tag__name", "tag_id")
        .values_list("paper_id", "tag__kind", "tag__name")
    )
    for paper_id, kind, name in tags:
        if paper := papers.get(paper_id):
            paper.add_tag(kind, name)
    authorships = list(
        Authorship.objects.filter(_ids_lookup("paper", paper_ids))
        .order_by("paper_id", "position")
        .values_list("paper_id", "author_id")
    )
    names = (author_names or AuthorNames()).of(author_id for _, author_id in authorships)
    for paper_id, author_id in authorships:
        paper = papers.get(paper_id)
        author_name = names.get(author_id)
        if paper is not None and author_name is not None:  # None: deleted since, left out
            paper.authors.append(author_name)
    return papers


def _chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(ids), BATCH_SIZE):
        yield ids[start : start + BATCH_SIZE]


def batches_of_papers(paper_ids: Sequence[int]) -> Iterator[list[Row]]:
    """The papers of `paper_ids`, in that order, BATCH_SIZE at a time. A paper deleted
    meanwhile is left out."""
    names = AuthorNames()
    for chunk in _chunks(paper_ids):
        found = papers_by_id(chunk, names)
        yield [Row(found[pk]) for pk in chunk if pk in found]


def list_entries(reading_list: ReadingList) -> list[tuple[int, str, int | None]]:
    """(paper id, status, priority) of each of a list's items, in list order: one query."""
    return list(
        reading_list.items.order_by("position", "pk").values_list("paper_id", "status", "priority")
    )


def batches_of_list_items(entries: Sequence[tuple[int, str, int | None]]) -> Iterator[list[Row]]:
    """A reading list's items (list_entries) with their papers, BATCH_SIZE at a time: three
    queries per batch. An item whose paper was deleted meanwhile is left out."""
    names = AuthorNames()
    for start in range(0, len(entries), BATCH_SIZE):
        chunk = entries[start : start + BATCH_SIZE]
        found = papers_by_id([paper_id for paper_id, _, _ in chunk], names)
        yield [
            Row(found[paper_id], list_cells(status, priority))
            for paper_id, status, priority in chunk
            if paper_id in found
        ]


def rows_of_items(items: Iterable[ReadingListItem]) -> list[Row]:
    return [row_of_item(item) for item in items]
