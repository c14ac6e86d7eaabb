"""The reader page without a stored PDF: what it says, and the fetch its first open asks for."""

from __future__ import annotations

from enum import StrEnum

from django.core.cache import cache

from papers.models import Paper
from pdfs import selectors
from pdfs.tasks import fetch_paper_pdfs

# A fetch asked for by an open of the reader is not asked again for this long: reloading the
# page while the worker downloads must not queue the same download again and again.
FETCH_ASKED_SECONDS = 15 * 60


class MissingPdf(StrEnum):
    NO_LINK = "no-link"  # nothing to fetch from: only an upload helps
    REFUSED = "refused"  # the link was refused lately; it is asked again after its wait
    FETCHING = "fetching"  # asked for now, or a little while ago


def ask_for_pdf(paper: Paper) -> MissingPdf:
    """Enqueue the fetch of a paper's PDF unless it has no link, its link waits after a
    refusal, or a fetch was asked for lately; say which."""
    if not paper.pdf_url:
        return MissingPdf.NO_LINK
    if Paper.objects.filter(pk=paper.pk).filter(selectors.waiting_after_refusal()).exists():
        return MissingPdf.REFUSED
    if cache.add(f"pdfs:reader-fetch:{paper.pk}", True, FETCH_ASKED_SECONDS):
        fetch_paper_pdfs.enqueue([paper.pk])
    return MissingPdf.FETCHING
