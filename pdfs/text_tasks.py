"""The background task that reads a stored PDF's text (enqueued when a PDF is stored or
replaced: pdfs.storing), run by the task worker (`manage.py task_worker`).

Its own module, not pdfs/tasks.py: storing enqueues it, and tasks.py imports the fetch runs,
which import storing."""

from __future__ import annotations

from django_tasks import task

from pdfs import texts


@task()
def extract_pdf_texts(paper_ids: list[int]) -> str:
    """Read the text of these papers' stored PDFs, where it is not of the present file yet;
    returns the summary and one line per failure."""
    report = texts.extract_texts(paper_ids)
    return " ".join([report.summary(), *report.failures])
