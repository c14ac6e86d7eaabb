"""A deleted PaperPdf or SetAsidePdf (its paper deleted, or a curator's delete in admin) takes
its file with it, once the deletion is committed (storage is not part of the transaction) and
unless a row still names the file: a merge sets a merged paper's file aside under a new row
before the paper and its PaperPdf are deleted (pdfs.merging, on papers.signals.papers_merging).
A PaperPdf's paper's search document changes with it (the "Has PDF" facet, the PDF's text).
The papers a feed adds are queued for a PDF fetch."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from papers.models import SearchChange
from papers.signals import feed_added_papers, papers_merging
from pdfs import merging, selectors
from pdfs.models import PaperPdf, SetAsidePdf, pdf_storage
from pdfs.tasks import fetch_paper_pdfs


@receiver(post_delete, sender=PaperPdf)
@receiver(post_delete, sender=SetAsidePdf)
def delete_file(sender, instance: PaperPdf | SetAsidePdf, using: str, **kwargs) -> None:
    name = instance.file.name
    if name:
        transaction.on_commit(lambda: _delete_unless_named(str(name), using), using=using)


def _delete_unless_named(name: str, using: str) -> None:
    # Read after the commit: the rows that name the file then are the ones that stay.
    for model in (PaperPdf, SetAsidePdf):
        if model.objects.using(using).filter(file=name).exists():
            return
    pdf_storage().delete(name)


@receiver(papers_merging)
def keep_merged_papers_pdfs(sender, target, other_ids: list[int], result, **kwargs) -> None:
    moved, set_aside = merging.keep_merged_pdfs(target_id=target.pk, other_ids=other_ids)
    result.moved[PaperPdf] += moved
    result.moved[SetAsidePdf] += set_aside


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
