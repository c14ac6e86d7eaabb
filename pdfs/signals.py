"""A deleted PaperPdf (its paper deleted or merged away, or a curator's delete in admin) takes
its file with it, once the deletion is committed: storage is not part of the transaction. Its
paper's search document changes with it (the "Has PDF" facet, the PDF's text). The papers a
feed adds are queued for a PDF fetch."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from papers.models import SearchChange
from papers.signals import feed_added_papers
from pdfs import selectors
from pdfs.models import PaperPdf, pdf_storage
from pdfs.tasks import fetch_paper_pdfs


@receiver(post_delete, sender=PaperPdf)
def delete_file(sender, instance: PaperPdf, **kwargs) -> None:
    name = instance.file.name
    if name:
        transaction.on_commit(lambda: pdf_storage().delete(name))


@receiver(post_delete, sender=PaperPdf)
def record_search_change(sender, instance: PaperPdf, using: str, **kwargs) -> None:
    SearchChange.objects.record([instance.paper_id], using=using)


@receiver(feed_added_papers)
def fetch_new_papers_pdfs(sender, paper_ids: list[int], **kwargs) -> None:
    """The papers a feed brought in get their PDFs at once, by the task worker, rather than
    at the next `fetch_pdfs` cron line."""
    wanted = list(selectors.papers_to_fetch(paper_ids=paper_ids).values_list("pk", flat=True))
    if wanted:
        fetch_paper_pdfs.enqueue(wanted)
