"""A paper's stored PDF: served to whoever may see the paper, uploaded by a member."""

from __future__ import annotations

from csp.constants import WASM_UNSAFE_EVAL
from csp.decorators import csp_update
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponsePermanentRedirect,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_POST, require_safe

from annotations import throttle
from papers import identity
from papers.downloads import served_as_file
from papers.models import Paper
from papers.numbers import MAX_ID
from papers.routes import int_url
from pdfs.forms import PdfUploadForm
from pdfs.models import PaperPdf
from pdfs.ranges import RangeNotSatisfiable, file_part, range_to_honour, requested_range
from pdfs.reader import TooManyFetches, ask_for_pdf, missing_pdf
from pdfs.storing import PdfExists, store_pdf
from pdfs.uploads import UploadQuotaFull

# A filename's length, before ".pdf": long titles are cut.
FILENAME_CHARS = 80
# static/js/reader/reader.js's imports, preloaded by the page so they arrive with it rather
# than after reader.js is read (tests/test_pdfs_reader.py checks the list against the imports).
READER_MODULES = ("pages.js", "pagetext.js", "find.js", "keys.js", "outline.js", "highlights.js")
# Sent in pieces of this size (as exports are): a few system calls per megabyte, not hundreds.
SEND_BLOCK_BYTES = 256 * 1024


def download_name(paper: Paper) -> str:
    """ASCII letters, digits and hyphens only: safe in a Content-Disposition header."""
    slug = slugify(paper.title)[:FILENAME_CHARS].strip("-")
    return f"{slug or f'paper-{paper.pk}'}.pdf"


@require_safe
def pdf_file(request: HttpRequest, pk: int) -> HttpResponseBase:
    # Every paper is visible to whoever may browse (REQUIRE_LOGIN's middleware guards this view
    # as it guards the paper page), so the PDF is too.
    if pk > MAX_ID:  # a foreign key lookup, unlike a primary key's, does not check the range
        raise Http404("No such paper.")
    pdf = get_object_or_404(PaperPdf.objects.select_related("paper"), paper_id=pk)
    # The file's hash names its version: a replaced PDF has another tag.
    etag = f'"{pdf.sha256}"'
    range_header = range_to_honour(
        request.headers.get("Range"), request.headers.get("If-Range"), etag
    )
    try:
        part = requested_range(range_header, pdf.size)
    except RangeNotSatisfiable:
        refused = HttpResponse(status=416)
        refused["Content-Range"] = f"bytes */{pdf.size}"
        return refused
    try:
        file = pdf.file.open("rb")
    except FileNotFoundError:
        raise Http404("This paper's PDF is missing from storage.") from None
    response: HttpResponseBase
    if part is None:
        response = FileResponse(file, content_type="application/pdf")
        response.block_size = SEND_BLOCK_BYTES
    else:
        start, end = part
        response = StreamingHttpResponse(
            file_part(file, start, end, SEND_BLOCK_BYTES),
            status=206,
            content_type="application/pdf",
        )
        response["Content-Length"] = str(end - start + 1)
        response["Content-Range"] = f"bytes {start}-{end}/{pdf.size}"
    # The reader (PDF.js) asks for parts of a long file rather than waiting for all of it.
    response["Accept-Ranges"] = "bytes"
    response["ETag"] = etag
    # Inline: the reader fetches it, and "Stored PDF" opens it in the browser's own viewer.
    return served_as_file(response, filename=download_name(pdf.paper), attachment=False)


@require_safe
# PDF.js compiles WebAssembly image decoders; only this page's policy allows it (its worker
# has its own, config/static_headers.py). PDF scripting stays off (static/js/reader/).
# (django-csp types a view as taking the request alone, hence the ignore.)
@csp_update({"script-src": [WASM_UNSAFE_EVAL]})  # type: ignore[arg-type]
def reader(request: HttpRequest, pk: int) -> HttpResponse:
    # Whoever may see the paper may read it, as pdf_file; the workspace panel beside the reader
    # reuses the paper page's prefetch of tags (annotations.selectors.lab_paper_tags).
    paper = Paper.objects.with_people_and_tags().select_related("pdf_file").filter(pk=pk).first()
    if paper is None:
        # A paper merged into another is read there (highlights moved with it), as its page is.
        kept = identity.paper_merged_into(pk)
        if kept is None:
            raise Http404("No such paper.")
        return HttpResponsePermanentRedirect(int_url("pdfs:reader", kept))
    try:
        pdf = paper.pdf_file
    except PaperPdf.DoesNotExist:
        pdf = None
    # Read only: a visitor's (or a crawler's) open never makes the site download.
    missing = None if pdf is not None else missing_pdf(paper)
    context = {"paper": paper, "pdf": pdf, "missing": missing, "reader_modules": READER_MODULES}
    return render(request, "pdfs/reader.html", context)


@require_POST
@login_required
def pdf_fetch(request: HttpRequest, pk: int) -> HttpResponse:
    """A member's "Fetch the PDF" on the reader page: queue the fetch (pdfs.reader)."""
    paper = get_object_or_404(Paper.objects.select_related("pdf_file"), pk=pk)
    back = int_url("pdfs:reader", pk)
    if hasattr(paper, "pdf_file"):
        return redirect(back)
    try:
        ask_for_pdf(paper, member_id=str(request.user.pk))
    except TooManyFetches as refused:
        return throttle.too_many_requests(request, refused.message, retry_after=60)
    return redirect(back)


@require_POST
@login_required
def pdf_upload(request: HttpRequest, pk: int) -> HttpResponse:
    paper = get_object_or_404(Paper.objects.only("pk"), pk=pk)
    # Back where the form was: the reader's page (which reads the new file) or the paper's.
    # A fixed choice, never a URL taken from the request.
    back = int_url("pdfs:reader", pk) if request.POST.get("from") == "reader" else paper
    form = PdfUploadForm(request.POST, request.FILES, user=request.user)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, str(error))
        return redirect(back)
    try:
        store_pdf(
            paper_id=paper.pk,
            file=form.cleaned_data["file"],
            sha256=form.sha256,
            size=form.size,
            uploaded_by=request.user,
            replace=False,
        )
    except PdfExists:
        messages.error(request, "This paper has a PDF already.")
    except UploadQuotaFull as full:  # another upload of theirs was stored meanwhile
        messages.error(request, full.message)
    else:
        messages.success(request, "PDF uploaded.")
    return redirect(back)
