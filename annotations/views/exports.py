"""Exports of the browsing pages' papers: every paper a page lists (not only the page shown),
as BibTeX, RIS, CSL-JSON or CSV (annotations.exports.FORMATS), streamed a batch at a time.

They live here rather than in `papers` because the catalogue never imports `annotations`.
Each export answers whoever may see its page: the list page's export reads the same URL the
same way, and its "mine" facet is the requesting member's own, as on the page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.http import HttpRequest, HttpResponsePermanentRedirect, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from annotations import exports
from papers.filters import PaperFilter
from papers.models import Author, Paper
from papers.search import engine
from papers.search.sync import current_searcher
from papers.views import tag_at


class FormatConverter:
    """The extension ending an export's URL: one of exports.FORMATS, anything else a 404."""

    regex = "|".join(exports.FORMATS)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


def streamed_download(
    batches: Iterable[Sequence[exports.Row]],
    *,
    extension: str,
    filename: str,
    list_columns: bool = False,
) -> StreamingHttpResponse:
    """The rows as a file download, written while it is sent: memory holds one batch."""
    fmt = exports.FORMATS[extension]
    response = StreamingHttpResponse(
        exports.stream(fmt, batches, list_columns=list_columns), content_type=fmt.content_type
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
def paper_list_export(request: HttpRequest, extension: str) -> StreamingHttpResponse:
    """The list page's papers for the same URL parameters (search, facets, sort), in its
    order. The index is asked for the matching ids only, without the page's facet counts."""
    state = PaperFilter(request.GET, request=request).state
    mine_sets = Paper.objects.mine_sets(request.user) if state.logged_in else {}
    query = state.engine_query(page=1, mine_sets=mine_sets)
    ids = engine.all_ids(current_searcher(), query)
    return streamed_download(
        exports.batches_of_papers(ids), extension=extension, filename=f"papers.{extension}"
    )


@require_GET
def author_export(request: HttpRequest, pk: int, extension: str) -> StreamingHttpResponse:
    """An author's papers, newest first as on their page."""
    author = get_object_or_404(Author, pk=pk)
    ids = _ids(Paper.objects.by_author(author.pk))
    filename = f"{slugify(author.name) or 'author'}-{author.pk}.{extension}"
    return streamed_download(exports.batches_of_papers(ids), extension=extension, filename=filename)


@require_GET
def tag_export(
    request: HttpRequest, kind: str, slug: str, extension: str
) -> StreamingHttpResponse | HttpResponsePermanentRedirect:
    """A tag's papers, newest first as on its page."""
    tag, merged = tag_at(kind, slug)
    if merged:  # merged into another tag: its export is the kept tag's, as its page
        return redirect("annotations:tag-export", tag.kind, tag.slug, extension, permanent=True)
    ids = _ids(Paper.objects.with_tag(tag.pk))
    filename = f"{slugify(tag.name) or tag.kind}.{extension}"
    return streamed_download(exports.batches_of_papers(ids), extension=extension, filename=filename)


def _ids(papers) -> list[int]:
    # Ids only (a few MB for the whole catalogue); the papers are read a batch at a time.
    return list(papers.sorted_by("newest").values_list("pk", flat=True))
