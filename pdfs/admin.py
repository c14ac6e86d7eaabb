from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models.functions import Length
from django.http import FileResponse, Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html

from papers.admin.guards import GuardedAdmin, ReadOnlyAdmin
from papers.numbers import parse_id
from pdfs import run_admin  # noqa: F401 - registers the PDF runs' admin
from pdfs.content import size_text
from pdfs.models import PaperPdf, PdfFetchFailure, PdfText, SetAsidePdf

SHOWN = (
    "paper",
    "open_file",
    "sha256",
    "file_size",
    "source_url",
    "uploaded_by",
    "fetched_at",
    "created_at",
    "updated_at",
)


@admin.register(PaperPdf)
class PaperPdfAdmin(GuardedAdmin, admin.ModelAdmin):
    list_display = ["paper", "file_size", "source", "uploaded_by", "fetched_at"]
    list_select_related = ["paper", "uploaded_by"]
    search_fields = ["paper__title", "=paper__id", "=sha256", "source_url"]
    date_hierarchy = "fetched_at"
    fields = SHOWN
    # A PDF comes from a fetch or a member's upload, both of which check it; here a curator
    # looks, or deletes a wrong one (its file goes with it).
    readonly_fields = SHOWN

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: PaperPdf | None = None) -> bool:
        return False

    @admin.display(description="size", ordering="size")
    def file_size(self, pdf: PaperPdf) -> str:
        return size_text(pdf.size)

    @admin.display(description="source")
    def source(self, pdf: PaperPdf) -> str:
        return "uploaded" if not pdf.source_url else pdf.source_url

    @admin.display(description="file")
    def open_file(self, pdf: PaperPdf) -> str:
        return format_html('<a href="{}">{}</a>', pdf.get_absolute_url(), pdf.file.name)


SET_ASIDE_SHOWN = (
    "paper",
    "merged_paper_id",
    "download",
    "sha256",
    "file_size",
    "source_url",
    "uploaded_by",
    "fetched_at",
    "set_aside_at",
)


@admin.register(SetAsidePdf)
class SetAsidePdfAdmin(GuardedAdmin, admin.ModelAdmin):
    """The PDFs of merged papers whose kept paper had its own (pdfs.merging): a curator
    downloads one to compare, or deletes it (its file goes with it)."""

    list_display = ["paper", "merged_paper_id", "file_size", "uploaded_by", "set_aside_at"]
    list_select_related = ["paper", "uploaded_by"]
    search_fields = ["paper__title", "=paper__id", "=merged_paper_id", "=sha256"]
    fields = SET_ASIDE_SHOWN
    readonly_fields = SET_ASIDE_SHOWN

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: SetAsidePdf | None = None) -> bool:
        return False

    def get_urls(self):
        file = self.admin_site.admin_view(self.file_view)
        return [
            path("<path:object_id>/file/", file, name="pdfs_setasidepdf_file"),
            *super().get_urls(),
        ]

    def file_view(self, request: HttpRequest, object_id: str) -> FileResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        pk = parse_id(unquote(object_id))
        pdf = get_object_or_404(SetAsidePdf, pk=pk) if pk is not None else None
        if pdf is None:
            raise Http404("No such set-aside PDF.")
        try:
            file = pdf.file.open("rb")
        except FileNotFoundError:
            raise Http404("This PDF is missing from storage.") from None
        # A download, never shown inline: nothing in the file runs in the admin's origin.
        response = FileResponse(
            file,
            as_attachment=True,
            content_type="application/pdf",
            filename=f"paper-{pdf.merged_paper_id}-set-aside.pdf",
        )
        response["X-Content-Type-Options"] = "nosniff"
        return response

    @admin.display(description="size", ordering="size")
    def file_size(self, pdf: SetAsidePdf) -> str:
        return size_text(pdf.size)

    @admin.display(description="file")
    def download(self, pdf: SetAsidePdf) -> str:
        url = reverse("admin:pdfs_setasidepdf_file", args=[pdf.pk])
        return format_html('<a href="{}">{}</a>', url, pdf.file.name)


@admin.register(PdfFetchFailure)
class PdfFetchFailureAdmin(ReadOnlyAdmin):
    """Links fetch_pdfs refused lately: where a curator finds a paper whose PDF link is wrong
    (fix the link on the paper: the next run asks the new one at once)."""

    list_display = ["paper", "reason", "url", "refusals", "failed_at", "retry_after"]
    list_filter = ["reason"]
    list_select_related = ["paper"]
    search_fields = ["paper__title", "=paper__id", "url"]
    readonly_fields = ["paper", "url", "reason", "message", "refusals", "failed_at", "retry_after"]


@admin.register(PdfText)
class PdfTextAdmin(ReadOnlyAdmin):
    """Each stored PDF's text as search reads it; the ones that could not be read, with why
    (a broken file, the time or memory limit): `manage.py extract_pdf_text --paper ID` reads
    one again, e.g. after a curator uploads a better file."""

    list_display = ["pdf", "page_count", "characters", "truncated", "failure", "extracted_at"]
    list_filter = ["failure", "truncated"]
    list_select_related = ["pdf"]
    search_fields = ["=pdf__paper__id", "pdf__paper__title"]
    readonly_fields = [
        "pdf",
        "sha256",
        "page_count",
        "truncated",
        "failure",
        "message",
        "extracted_at",
        "text",
    ]

    def get_queryset(self, request: HttpRequest):
        # The list shows the text's length, never the text (up to PDF_TEXT_MAX_CHARS a row).
        return super().get_queryset(request).annotate(characters=Length("text"))

    @admin.display(description="characters", ordering="characters")
    def characters(self, text: PdfText) -> int:
        # Annotated by get_queryset.
        return text.characters  # type: ignore[attr-defined]
