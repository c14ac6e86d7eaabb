"""A deleted PaperPdf or SetAsidePdf (its paper deleted, or a curator's delete in admin) takes
its file with it, once the deletion is committed (storage is not part of the transaction) and
unless a row still names the file: a merge sets a merged paper's file aside under a new row
before the paper and its PaperPdf are deleted (pdfs.merging, on papers.signals.papers_merging).
A PaperPdf's paper's search document changes with it (the "Has PDF" facet, the PDF's text).
The papers a feed adds get a bulk PDF run if the feed asks for one (pdfs.bulk); a run whose
batch a stopped worker left, and that was not queued again, ends failed."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from operations.heartbeats import task_abandoned
from papers.models import SearchChange
from papers.signals import feed_added_papers, papers_merging
from pdfs import bulk, merging
from pdfs.models import PaperPdf, SetAsidePdf, pdf_storage


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
def download_new_papers_pdfs(sender, paper_ids: list[int], feed_id: int, **kwargs) -> None:
    """A feed with `download_pdfs` on starts a bulk run over the papers its fetch added (at
    most its cap); any other feed's papers wait for the `fetch_pdfs` cron line."""
    bulk.start_after_fetch(feed_id, paper_ids)


@receiver(task_abandoned)
def fail_abandoned_run(sender, task_path: str, args: list, **kwargs) -> None:
    if task_path == bulk.fetch_pdf_run_batch.module_path:
        bulk.fail_interrupted(args[0])
