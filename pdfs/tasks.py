"""Background tasks of the pdfs app, run by the task worker (`manage.py task_worker`)."""

from __future__ import annotations

from django_tasks import task

from operations.queues import DEFAULT_QUEUE, MEMBER_PRIORITY, resumable
from pdfs import runs, selectors


# A member asked for it (pdfs.reader); a feed's bulk download is pdfs.bulk's, on the bulk queue.
@resumable
@task(priority=MEMBER_PRIORITY, queue_name=DEFAULT_QUEUE)
def fetch_paper_pdfs(paper_ids: list[int]) -> str:
    """Fetch the PDFs of these papers that have a PDF link and no stored PDF (a member's
    "Fetch the PDF" in the reader enqueues it); returns the run's summary."""
    papers = selectors.papers_to_fetch(paper_ids=paper_ids).values_list("pk", "pdf_url")
    report = runs.fetch_pdfs(papers)
    return " ".join([report.summary(), *report.lines()])
