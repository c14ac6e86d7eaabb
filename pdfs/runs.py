"""Fetching the PDFs of many papers: downloads in a few threads, writes in the calling one.

The threads only talk HTTP (pdfs.fetching) and take hosts' turns in the cache; every database
write and storage save happens here, in the caller's thread, one paper at a time: SQLite has one
writer anyway, and a test's transaction stays the only connection that writes.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from django.db import connections

from pdfs.fetching import DownloadedPdf, PdfFetcher, PdfRefused
from pdfs.storing import PdfExists, Stored, record_refusal, store_pdf

logger = logging.getLogger(__name__)

# Downloads at once: a handful keeps a run short without pressing any one host (arXiv asks
# bulk users to go gently; most of a run's links point at one or two hosts).
WORKERS = 2


@dataclass
class FetchReport:
    stored: Counter[Stored] = field(default_factory=Counter)
    # (paper id, reason, message) of each PDF not stored, in the order they finished.
    refused: list[tuple[int, str, str]] = field(default_factory=list)

    def refuse(self, paper_id: int, reason: str, message: str) -> None:
        self.refused.append((paper_id, reason, message))

    def summary(self) -> str:
        fetched = self.stored[Stored.NEW] + self.stored[Stored.REPLACED]
        parts = [f"{fetched} fetched"]
        if self.stored[Stored.REPLACED]:
            parts[0] += f" ({self.stored[Stored.REPLACED]} replacing an older file)"
        parts.append(f"{self.stored[Stored.UNCHANGED]} unchanged")
        refused = f"{len(self.refused)} refused"
        if self.refused:
            reasons = Counter(reason for _, reason, _ in self.refused)
            refused += ": " + ", ".join(f"{n} {reason}" for reason, n in reasons.most_common())
        parts.append(refused)
        return "PDFs: " + ", ".join(parts) + "."

    def lines(self) -> list[str]:
        return [f"paper {paper_id}: {message}" for paper_id, _, message in self.refused]


def fetch_pdfs(
    papers: Iterable[tuple[int, str]],
    *,
    workers: int = WORKERS,
    fetcher: PdfFetcher | None = None,
) -> FetchReport:
    """Fetch and store the PDF at each (paper id, PDF URL)."""
    report = FetchReport()
    own_fetcher = fetcher is None
    fetcher = fetcher or PdfFetcher()
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    try:
        futures: dict[Future[DownloadedPdf], tuple[int, str]] = {
            pool.submit(_download, fetcher, url): (paper_id, url) for paper_id, url in papers
        }
        for future in as_completed(futures):
            paper_id, url = futures[future]
            _store_one(report, paper_id, url, future)
    finally:
        # Interrupted (Ctrl-C, a killed worker's exception): the downloads not yet started
        # are dropped instead of run to the end of the queue.
        pool.shutdown(cancel_futures=True)
        if own_fetcher:
            fetcher.close()
    return report


def _download(fetcher: PdfFetcher, url: str) -> DownloadedPdf:
    """One download, in a pool thread. The thread's database connection (opened by the client
    to take the host's turn in the shared cache) is closed after, not left to the thread's end."""
    try:
        return fetcher.fetch(url)
    finally:
        connections.close_all()


def _store_one(report: FetchReport, paper_id: int, url: str, future: Future[DownloadedPdf]) -> None:
    try:
        with future.result() as pdf:
            report.stored[
                store_pdf(
                    paper_id=paper_id,
                    file=pdf.file,
                    sha256=pdf.sha256,
                    size=pdf.size,
                    source_url=url,
                )
            ] += 1
    except PdfRefused as refused:
        report.refuse(paper_id, refused.reason, str(refused))
        record_refusal(paper_id=paper_id, url=url, reason=refused.reason, message=refused.message)
    except PdfExists:  # another run stored one meanwhile
        report.stored[Stored.UNCHANGED] += 1
    except Exception as error:
        # One paper's unexpected failure is logged and the run goes on with the others.
        logger.exception("PDF of paper %s from %s", paper_id, url)
        report.refuse(paper_id, "failed", f"{url}: failed ({type(error).__name__}: {error})")
