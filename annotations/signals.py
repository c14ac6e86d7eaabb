"""Anchored comments follow their paper's abstract (annotations.anchors); a prepared export's
file goes with its job; a paper fetched by its link for a reading list goes on it.

Two write paths change an abstract: a save of the Paper (the admin, curation) sends post_save;
an import writes in bulk and sends papers.signals.abstracts_changed with the papers' ids.
Both re-anchor in the writer's transaction, so the comments never point into an abstract that
was rolled back.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from annotations.anchors import reanchor_papers
from annotations.models import ExportJob
from annotations.services import settle_additions_by_link
from papers.models import Paper
from papers.signals import abstracts_changed, link_fetch_finished


@receiver(post_save, sender=Paper, dispatch_uid="annotations_reanchor_saved_paper")
def _paper_saved(sender, instance: Paper, created: bool, using: str, update_fields=None, **kwargs):
    if created or (update_fields is not None and "abstract" not in update_fields):
        return
    reanchor_papers([instance.pk], using=using)


@receiver(abstracts_changed, dispatch_uid="annotations_reanchor_imported_papers")
def _abstracts_changed(sender, paper_ids, using: str = "default", **kwargs):
    reanchor_papers(paper_ids, using=using)


@receiver(link_fetch_finished, dispatch_uid="annotations_add_fetched_paper_to_list")
def _link_fetch_finished(sender, fetch_ids, **kwargs):
    """A paper a member asked to put on a list by its link goes on it once it is fetched, in
    the transaction that records the fetch's outcome."""
    settle_additions_by_link(fetch_ids)


@receiver(post_delete, sender=ExportJob, dispatch_uid="annotations_delete_export_file")
def _export_job_deleted(sender, instance: ExportJob, using: str, **kwargs):
    """A deleted job (its member deleted, or the member's own delete) takes its file, which
    holds the member's private notes, once the deletion is committed: storage is not part of
    the transaction. A file left by a process that died in between is swept by prune_exports."""
    name, storage = instance.file.name, instance.file.storage
    if name:
        transaction.on_commit(lambda: storage.delete(name), using=using)
