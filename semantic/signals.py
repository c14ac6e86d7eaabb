"""A paper whose title or abstract may have changed is queued for embedding, once the change
commits (the task compares the text's hash, so a save that changed neither costs no model run).

Paper post_save covers the admin and services; the importer's bulk updates send
papers.signals.abstracts_changed. Papers an import adds are embedded by `embed_papers` (the
cron line of docs/semantic.md), as PDFs are fetched by `fetch_pdfs`.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from papers.models import Paper
from papers.signals import abstracts_changed, feed_added_papers
from semantic.embedder import get_embedder
from semantic.tasks import embed_changed_papers

EMBEDDED_FIELDS = frozenset({"title", "abstract"})


def _enqueue(paper_ids: list[int]) -> None:
    if paper_ids and get_embedder() is not None:
        transaction.on_commit(lambda: embed_changed_papers.enqueue(sorted(paper_ids)))


@receiver(post_save, sender=Paper)
def paper_saved(sender, instance: Paper, update_fields=None, **kwargs) -> None:
    if update_fields is not None and not EMBEDDED_FIELDS.intersection(update_fields):
        return
    _enqueue([instance.pk])


@receiver(abstracts_changed)
@receiver(feed_added_papers)
def papers_changed(sender, paper_ids, **kwargs) -> None:
    _enqueue(list(paper_ids))
