"""What an export URL exports, for a given user: its papers in order, how many, its file name.

One place for each kind of export (the list page's search, an author's, a tag's and a reading
list's papers), read by the views that answer an export URL and by the background job that
writes a large one later (`source_for_path`, from the URL the job keeps). Each answers as the
pages do for that user: the "mine" facet is the user's own, a private list only its owner's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from types import SimpleNamespace
from urllib.parse import urlsplit

from django.http import Http404, QueryDict
from django.shortcuts import get_object_or_404
from django.urls import Resolver404, resolve
from django.utils.text import slugify

from annotations import export_data, export_notes, selectors
from annotations.models import ReadingList
from papers import identity
from papers.filters import PaperFilter
from papers.models import Author, Paper, Tag
from papers.search import engine
from papers.search.sync import current_searcher


@dataclass(frozen=True)
class ExportSource:
    """The rows of one export: `count` of them, read by `batches()` a batch at a time."""

    name: str  # the file name without its extension
    count: int
    batches: Callable[[], Iterator[list[export_data.Row]]]
    list_columns: bool = False

    def filename(self, extension: str) -> str:
        return f"{self.name}.{extension}"


def with_member_notes(source: ExportSource, user, params, extension: str) -> ExportSource:
    """`source` with the member's own notes in each entry (BibTeX `note`, RIS `N1`) when the
    export URL asks for them (`notes=mine`); else `source` as it is."""
    if not export_notes.requested(params, user, extension):
        return source
    batches = source.batches
    return replace(
        source,
        name=f"{source.name}-with-notes",
        batches=lambda: export_notes.with_notes(user, batches()),
    )


def paper_list_source(user, params: QueryDict) -> ExportSource:
    """The list page's papers for the same parameters (search, facets, sort), in its order.
    The index is asked for their number first, then, when they are written, for the
    matching ids only, without the page's facet counts."""
    state = PaperFilter(params, request=SimpleNamespace(user=user)).state
    mine_sets = Paper.objects.mine_sets(user) if state.logged_in else {}
    query = state.engine_query(page=1, mine_sets=mine_sets)
    return ExportSource(
        "papers",
        engine.match_count(current_searcher(), query),
        lambda: export_data.batches_of_papers(engine.all_ids(current_searcher(), query)),
    )


def author_source(author: Author) -> ExportSource:
    """An author's papers, newest first as on their page."""
    return _of_papers(
        f"{slugify(author.name) or 'author'}-{author.pk}", Paper.objects.by_author(author.pk)
    )


def tag_source(tag: Tag) -> ExportSource:
    """A tag's papers, newest first as on its page."""
    return _of_papers(slugify(tag.name) or tag.kind, Paper.objects.with_tag(tag.pk))


def _of_papers(name: str, papers) -> ExportSource:
    """`papers`, counted now and read newest first when written: ids only (a few MB for the
    whole catalogue), the papers a batch at a time."""

    def batches() -> Iterator[list[export_data.Row]]:
        ids = list(papers.sorted_by("newest").values_list("pk", flat=True))
        return export_data.batches_of_papers(ids)

    return ExportSource(name, papers.count(), batches)


def reading_list_source(reading_list: ReadingList) -> ExportSource:
    """A list's items in list order, with each item's status and priority (CSV)."""
    entries = export_data.list_entries(reading_list)
    return ExportSource(
        f"{slugify(reading_list.name) or 'reading-list'}-{reading_list.pk}",
        len(entries),
        lambda: export_data.batches_of_list_items(entries),
        list_columns=True,
    )


# --- From a URL, for a background job -----------------------------------------------------------


def source_for_path(user, path: str) -> tuple[ExportSource, str]:
    """The source and file extension of the export URL `path` (path and query string), as
    `user` may see it. Http404 for a URL that is not an export, or not one `user` may read."""
    parts = urlsplit(path)
    try:
        match = resolve(parts.path)
    except Resolver404:
        raise Http404("not an export address") from None
    kwargs = dict(match.kwargs)
    extension = kwargs.pop("extension", None)
    if extension is None or match.url_name not in _BY_URL_NAME:
        raise Http404("not an export address")
    params = QueryDict(parts.query)
    source = _BY_URL_NAME[match.url_name](user, params, **kwargs)
    return with_member_notes(source, user, params, extension), extension


def _list_export(user, params: QueryDict, pk: int) -> ExportSource:
    return reading_list_source(get_object_or_404(selectors.visible_lists(user), pk=pk))


def _author_export(user, params: QueryDict, pk: int) -> ExportSource:
    # A merged author's address exports the kept author, as their page shows.
    found = identity.author_at(pk)
    if found is None:
        raise Http404("No such author.")
    return author_source(found[0])


def _tag_export(user, params: QueryDict, kind: str, slug: str) -> ExportSource:
    # A merged spelling's address exports the kept tag, as its page shows.
    found = identity.tag_at(kind, slug)
    if found is None:
        raise Http404("No tag at this address.")
    return tag_source(found[0])


_BY_URL_NAME: dict[str, Callable[..., ExportSource]] = {
    "papers-export": paper_list_source,
    "author-export": _author_export,
    "tag-export": _tag_export,
    "list-export-bibtex": _list_export,
    "list-export-ris": _list_export,
    "list-export-csl": _list_export,
    "list-export-csv": _list_export,
}
