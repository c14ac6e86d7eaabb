"""Exports of the browsing pages' papers: every paper a page lists (not only the page shown),
as BibTeX, RIS, CSL-JSON or CSV (annotations.exports.FORMATS).

They live here rather than in `papers` because the catalogue never imports `annotations`.
Each export answers whoever may see its page (annotations.export_sources). An export within
the requester's limit (annotations.export_limits) is written whole, then sent with its length
(annotations.export_files); a larger one is refused with a page that says why: log in, or, for
a member, have it prepared in the background (`export_prepare`), then fetched from "Your
exports" (`export_list`, `export_download`).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
)
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotations import export_jobs, exports, tasks
from annotations.export_files import ExportTooSlow, write_export
from annotations.export_jobs import ExportQuotaFull
from annotations.export_limits import ExportBusy, export_limit, export_slot
from annotations.export_sources import (
    ExportSource,
    author_source,
    paper_list_source,
    tag_source,
    with_member_notes,
)
from annotations.models import (
    EXPORT_PATH_MAX_LENGTH,
    PENDING_EXPORT_STATUSES,
    ExportJob,
    ExportStatus,
)
from papers.downloads import served_as_file
from papers.views import HtmxHttpRequest, author_at, tag_at

# Sent in pieces of this size: a few system calls per megabyte, not hundreds.
_SEND_BLOCK_BYTES = 256 * 1024


class FormatConverter:
    """The extension ending an export's URL: one of exports.FORMATS, anything else a 404."""

    regex = "|".join(exports.FORMATS)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


def export_response(request: HttpRequest, source: ExportSource, extension: str) -> HttpResponseBase:
    """The export as a complete file, or a page saying why it is not one. Refusals cost a
    count at most: the ids are read only once the export holds its slots. With `notes=mine`,
    a member's BibTeX or RIS carries their own notes (annotations.export_notes)."""
    source = with_member_notes(source, request.user, request.GET, extension)
    limit = export_limit(request.user)
    if source.count > limit:
        return _refusal(request, source, "too_many", status=403, limit_label=f"{limit:,}")
    try:
        with export_slot(request):
            written = write_export(
                extension,
                source.batches(),
                list_columns=source.list_columns,
                time_limit=settings.EXPORT_TIME_LIMIT,
            )
    except ExportBusy as busy:
        refusal = _refusal(request, source, "busy", status=429, message=busy.message)
        refusal["Retry-After"] = str(busy.retry_after)
        return refusal
    except ExportTooSlow:
        return _refusal(request, source, "too_slow", status=503)
    response = FileResponse(written.file, content_type=exports.FORMATS[extension].content_type)
    response.block_size = _SEND_BLOCK_BYTES
    # How many papers the file holds: a script can check it got them all.
    response["X-Export-Entries"] = str(written.entries)
    return served_as_file(response, filename=source.filename(extension), attachment=True)


def _refusal(
    request: HttpRequest, source: ExportSource, reason: str, *, status: int, **context
) -> HttpResponse:
    return render(
        request,
        "annotations/export_refused.html",
        {
            "reason": reason,
            "count_label": f"{source.count:,}",
            "path": request.get_full_path(),
            "time_limit": settings.EXPORT_TIME_LIMIT,
            **context,
        },
        status=status,
    )


@require_GET
def paper_list_export(request: HttpRequest, extension: str) -> HttpResponseBase:
    """The list page's papers for the same URL parameters (search, facets, sort)."""
    return export_response(request, paper_list_source(request.user, request.GET), extension)


@require_GET
def author_export(request: HttpRequest, pk: int, extension: str) -> HttpResponseBase:
    """An author's papers, newest first as on their page."""
    author, merged = author_at(pk)
    if merged:  # merged into another author: their export is the kept author's, as their page
        return redirect("annotations:author-export", author.pk, extension, permanent=True)
    return export_response(request, author_source(author), extension)


@require_GET
def tag_export(request: HttpRequest, kind: str, slug: str, extension: str) -> HttpResponseBase:
    """A tag's papers, newest first as on its page."""
    tag, merged = tag_at(kind, slug)
    if merged:  # merged into another tag: its export is the kept tag's, as its page
        return redirect("annotations:tag-export", tag.kind, tag.slug, extension, permanent=True)
    return export_response(request, tag_source(tag), extension)


# --- Prepared in the background ---------------------------------------------------------------


@require_POST
@login_required
def export_prepare(request: HttpRequest) -> HttpResponse:
    """Have the export at the posted address written in the background."""
    path = request.POST.get("path", "")
    if not path.startswith("/") or len(path) > EXPORT_PATH_MAX_LENGTH:
        return HttpResponseBadRequest("Not an export address.")
    try:
        job = tasks.start_export(request.user, path)
    except Http404:
        return HttpResponseBadRequest("Not an export address.")
    except tasks.ExportPending as pending:
        messages.info(request, f"“{pending.job.filename}” is still being prepared.")
        return redirect("annotations:export-list")
    except ExportQuotaFull as full:
        messages.error(request, full.message)
        return redirect("annotations:export-list")
    messages.success(request, f"Preparing “{job.filename}”; it will be listed here when ready.")
    return redirect("annotations:export-list")


def _own_jobs(request: HttpRequest) -> QuerySet[ExportJob]:
    return ExportJob.objects.filter(owner__pk=request.user.pk or 0)


@require_GET
@login_required
def export_list(request: HtmxHttpRequest) -> HttpResponse:
    """The member's prepared exports, newest first; refreshed while one is being written. A
    job whose worker stopped is shown failed and not waited for."""
    jobs = list(export_jobs.with_stopped(_own_jobs(request))[:20])
    context = {
        "jobs": jobs,
        "pending": any(job.is_pending and not job.stopped for job in jobs),
        "days": settings.EXPORT_FILE_DAYS,
        "worker_stopped": export_jobs.WORKER_STOPPED,
    }
    template = "annotations/_export_jobs.html" if request.htmx else "annotations/export_list.html"
    return render(request, template, context)


@require_POST
@login_required
def export_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """Delete one of the member's finished exports (its file goes with it), making room for
    another (one whose worker stopped too); anyone else's is a 404, as a missing one."""
    export_jobs.fail_stopped_jobs(_own_jobs(request))
    job = get_object_or_404(_own_jobs(request).exclude(status__in=PENDING_EXPORT_STATUSES), pk=pk)
    job.delete()
    messages.success(request, f"“{job.filename}” deleted.")
    return redirect("annotations:export-list")


@require_GET
@login_required
def export_download(request: HttpRequest, pk: int) -> FileResponse:
    """A prepared export, for its owner only (anyone else's is a 404, as a missing one)."""
    job = get_object_or_404(ExportJob, pk=pk, owner__pk=request.user.pk, status=ExportStatus.DONE)
    try:
        file = job.file.open("rb")
    except FileNotFoundError:
        raise Http404("This export's file is no longer kept.") from None
    response = FileResponse(file, content_type=exports.FORMATS[job.extension].content_type)
    response.block_size = _SEND_BLOCK_BYTES
    response["X-Export-Entries"] = str(job.entries)
    return served_as_file(response, filename=job.filename, attachment=True)
