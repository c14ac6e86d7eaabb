"""The reader page without a stored PDF: what it says, and the fetch a member may ask for.

Only a member's POST ("Fetch the PDF") queues a fetch: a page that any visitor or crawler
opens must not make the site download (issue 43). Each member may ask for
PDF_FETCHES_PER_MEMBER fetches per PDF_FETCHES_WINDOW_SECONDS (annotations.throttle), and the
site keeps at most PDF_FETCHES_PENDING fetch tasks waiting or running, whoever queued them.
"""

from __future__ import annotations

from enum import StrEnum

from django.conf import settings
from django.core.cache import cache

from annotations import throttle
from papers.models import Paper
from pdfs import selectors
from pdfs.tasks import fetch_paper_pdfs

# A fetch asked for is not asked again for this long: pressing the button again while the
# worker downloads must not queue the same download again and again.
FETCH_ASKED_SECONDS = 15 * 60


class MissingPdf(StrEnum):
    NO_LINK = "no-link"  # nothing to fetch from: only an upload helps
    REFUSED = "refused"  # the link was refused lately; it is asked again after its wait
    FETCHING = "fetching"  # asked for now, or a little while ago
    FETCHABLE = "fetchable"  # a member may ask for it


class TooManyFetches(Exception):
    """The member's share of fetches is used up, or the site has enough of them queued."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _asked_key(paper: Paper) -> str:
    return f"pdfs:reader-fetch:{paper.pk}"


def missing_pdf(paper: Paper) -> MissingPdf:
    """Why a paper without a stored PDF has none, read only: a page may call it."""
    if not paper.pdf_url:
        return MissingPdf.NO_LINK
    if Paper.objects.filter(pk=paper.pk).filter(selectors.waiting_after_refusal()).exists():
        return MissingPdf.REFUSED
    if cache.get(_asked_key(paper)):
        return MissingPdf.FETCHING
    return MissingPdf.FETCHABLE


def ask_for_pdf(paper: Paper, *, member_id: str) -> MissingPdf:
    """Enqueue the fetch of a paper's PDF for the member `member_id` unless there is nothing
    to fetch or it was asked for lately; say which. Raises TooManyFetches (nothing queued)
    past a limit."""
    missing = missing_pdf(paper)
    if missing != MissingPdf.FETCHABLE:
        return missing
    # The site's cap first: a member refused for the site's load keeps their own share.
    if selectors.pending_tasks(fetch_paper_pdfs.module_path) >= settings.PDF_FETCHES_PENDING:
        raise TooManyFetches(
            "The site has many PDFs to fetch right now. Try again in a few minutes."
        )
    if not throttle.allow(
        "pdf-fetch",
        member_id,
        limit=settings.PDF_FETCHES_PER_MEMBER,
        window=settings.PDF_FETCHES_WINDOW_SECONDS,
    ):
        minutes = settings.PDF_FETCHES_WINDOW_SECONDS // 60
        raise TooManyFetches(
            f"You have asked for {settings.PDF_FETCHES_PER_MEMBER} PDFs in the last "
            f"{minutes} minutes, as many as one member may. Try again later, or upload the PDF."
        )
    if cache.add(_asked_key(paper), True, FETCH_ASKED_SECONDS):
        fetch_paper_pdfs.enqueue([paper.pk])
    return MissingPdf.FETCHING
