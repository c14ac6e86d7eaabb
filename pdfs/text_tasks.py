"""The background task that reads a stored PDF's text (enqueued when a PDF is stored or
replaced: pdfs.storing), run by the task worker (`manage.py task_worker`).

Its own module, not pdfs/tasks.py: storing enqueues it, and tasks.py imports the fetch runs,
which import storing."""

from __future__ import annotations

from django_tasks import task

from operations.queues import DEFAULT_QUEUE, TEXT_PRIORITY, resumable
from pdfs import texts


# A member's upload queues it at MEMBER_PRIORITY (pdfs.storing.read_text_after_commit).
@resumable
@task(priority=TEXT_PRIORITY, queue_name=DEFAULT_QUEUE)
def extract_pdf_texts(paper_ids: list[int]) -> str:
    """Read the text of these papers' stored PDFs, where it is not of the present file yet;
    returns the summary and one line per failure."""
    report = texts.extract_texts(paper_ids)
    return " ".join([report.summary(), *report.failures])
