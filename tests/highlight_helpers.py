"""Highlights and stored PDFs for the highlights tests."""

from __future__ import annotations

from django.utils import timezone

from highlights.models import Highlight, HighlightVisibility
from pdfs.extraction import PAGE_BREAK
from pdfs.models import PaperPdf, PdfText

SENTENCE = "We propose a simple method."


def make_highlight(author, paper, *, exact: str = SENTENCE, page: int = 1, **fields) -> Highlight:
    fields.setdefault("start", 10)
    fields.setdefault("end", fields["start"] + len(exact))
    fields.setdefault("visibility", HighlightVisibility.PRIVATE)
    return Highlight.objects.create(author=author, paper=paper, exact=exact, page=page, **fields)


def store_pdf_row(paper, sha256: str = "a" * 64) -> PaperPdf:
    """The paper's PDF row as pdfs.storing leaves it (no file: highlights read only the hash)."""
    PaperPdf.objects.filter(paper=paper).delete()
    return PaperPdf.objects.create(
        paper=paper,
        file=f"pdfs/{paper.pk}/{sha256[:16]}.pdf",
        sha256=sha256,
        size=1,
        fetched_at=timezone.now(),
    )


def store_pdf_text(pdf: PaperPdf, pages: list[str]) -> PdfText:
    """The text pdfs.texts would store for `pdf`, page by page."""
    return PdfText.objects.create(
        pdf=pdf,
        sha256=pdf.sha256,
        text=PAGE_BREAK.join(pages),
        page_count=len(pages),
        extracted_at=timezone.now(),
    )


def highlight_post(**overrides) -> dict[str, str]:
    """A valid create form as the reader posts it."""
    data = {
        "page": "3",
        "exact": SENTENCE,
        "prefix": "In this paper ",
        "suffix": " It works.",
        "start": "120",
        "end": str(120 + len(SENTENCE)),
        "note": "",
        "visibility": "private",
    }
    data.update(overrides)
    return data
