from __future__ import annotations

from django.contrib import admin
from django.db.models.functions import Length
from django.http import HttpRequest
from django.utils.html import format_html

from papers.admin.guards import GuardedAdmin, ReadOnlyAdmin
from pdfs.content import size_text
from pdfs.models import PaperPdf, PdfFetchFailure, PdfText

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
