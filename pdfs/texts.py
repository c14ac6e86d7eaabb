"""Reading a stored PDF's text into its PdfText row, and telling the search index.

The file is read through the storage API and its text extracted in a child process
(pdfs.extraction, with PDF_TEXT_TIMEOUT and PDF_TEXT_MEMORY_MB); a file over PDF_TEXT_MAX_BYTES
or PDF_TEXT_MAX_PAGES is "too long to index" and not read. The row is written, and the
paper's search document recorded as changed (papers' change log), in one transaction. A
failure is an outcome: its reason is kept on the row for curators, nothing is raised.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from papers.models import SearchChange
from pdfs.content import size_text
from pdfs.extraction import Extracted, Failure, extract_text
from pdfs.models import PaperPdf, PdfText


class Outcome(StrEnum):
    READ = "read"
    FAILED = "failed"
    UNCHANGED = "unchanged"  # its text is of this very file already
    GONE = "gone"  # no stored PDF, or it was replaced while being read


def pdfs_needing_text(paper_ids: Iterable[int] = (), *, every: bool = False) -> QuerySet[PaperPdf]:
    """Stored PDFs without text of their present file (never read, or replaced since); with
    `every`, all of them; only those of `paper_ids` if given. Oldest papers first."""
    pdfs = PaperPdf.objects.all()
    ids = list(paper_ids)
    if ids:
        pdfs = pdfs.filter(paper_id__in=ids)
    if not every:
        pdfs = pdfs.filter(Q(text__isnull=True) | ~Q(text__sha256=F("sha256")))
    return pdfs.order_by("paper_id")


def extract_paper_text(paper_id: int, *, again: bool = False) -> tuple[Outcome, Extracted | None]:
    """Read the text of paper `paper_id`'s stored PDF, unless its text is of this file already
    (`again` reads it anyway)."""
    pdf = PaperPdf.objects.filter(paper_id=paper_id).select_related("text").first()
    if pdf is None:
        return Outcome.GONE, None
    known = getattr(pdf, "text", None)
    if known is not None and known.sha256 == pdf.sha256 and not again:
        return Outcome.UNCHANGED, None
    extracted = _extract(pdf)
    with transaction.atomic():
        # The file may have been replaced while it was read: that file's own task reads it.
        # Or moved to another paper by a merge (pdfs.merging): the text goes with it, to that
        # paper's search document.
        current = PaperPdf.objects.select_for_update().filter(pk=pdf.pk, sha256=pdf.sha256)
        owner = current.values_list("paper_id", flat=True).first()
        if owner is None:
            return Outcome.GONE, extracted
        PdfText.objects.update_or_create(
            pdf=pdf,
            defaults={
                "sha256": pdf.sha256,
                "text": extracted.text,
                "page_count": extracted.page_count,
                "truncated": extracted.truncated,
                "failure": str(extracted.failure or ""),
                "message": extracted.message,
                "extracted_at": timezone.now(),
            },
        )
        SearchChange.objects.record([owner])
    return (Outcome.FAILED if extracted.failure else Outcome.READ), extracted


def _extract(pdf: PaperPdf) -> Extracted:
    if pdf.size > settings.PDF_TEXT_MAX_BYTES:  # not even read: the child's start is saved
        limit = size_text(settings.PDF_TEXT_MAX_BYTES)
        return Extracted(
            failure=Failure.TOO_LONG,
            message=f"{size_text(pdf.size)}, more than the limit of {limit}",
        )
    try:
        with pdf.file.open("rb") as file:
            # Stored files were checked against PDF_MAX_BYTES; the bound holds if one was not.
            data = file.read(settings.PDF_MAX_BYTES + 1)
    except OSError as error:  # FileNotFoundError, or the store could not be reached
        return Extracted(failure=Failure.FILE_MISSING, message=f"{type(error).__name__}: {error}")
    return extract_text(
        data,
        timeout=settings.PDF_TEXT_TIMEOUT,
        memory_mb=settings.PDF_TEXT_MEMORY_MB,
        max_chars=settings.PDF_TEXT_MAX_CHARS,
        max_pages=settings.PDF_TEXT_MAX_PAGES,
    )


@dataclass
class TextReport:
    outcomes: Counter = field(default_factory=Counter)
    pages: int = 0
    failures: list[str] = field(default_factory=list)  # "paper 12: time limit: ..."

    def add(self, paper_id: int, outcome: Outcome, extracted: Extracted | None) -> None:
        self.outcomes[outcome] += 1
        if extracted is not None and outcome == Outcome.READ:
            self.pages += len(extracted.pages)
        if extracted is not None and extracted.failure:
            self.failures.append(f"paper {paper_id}: {extracted.failure}: {extracted.message}")

    def summary(self) -> str:
        return (
            f"PDF text: {self.outcomes[Outcome.READ]} read ({self.pages} pages), "
            f"{self.outcomes[Outcome.UNCHANGED]} unchanged, "
            f"{self.outcomes[Outcome.FAILED]} failed."
        )


def extract_texts(paper_ids: Iterable[int], *, again: bool = False) -> TextReport:
    """Read the text of each of these papers' PDFs, one after the other."""
    report = TextReport()
    for paper_id in paper_ids:
        outcome, extracted = extract_paper_text(paper_id, again=again)
        report.add(paper_id, outcome, extracted)
    return report
