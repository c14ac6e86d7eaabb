"""A deleted PaperPdf (its paper deleted or merged away, or a curator's delete in admin) takes
its file with it, once the deletion is committed: storage is not part of the transaction. Its
paper's search document changes with it (the "Has PDF" facet, the PDF's text)."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from papers.models import SearchChange
from pdfs.models import PaperPdf, pdf_storage


@receiver(post_delete, sender=PaperPdf)
def delete_file(sender, instance: PaperPdf, **kwargs) -> None:
    name = instance.file.name
    if name:
        transaction.on_commit(lambda: pdf_storage().delete(name))


@receiver(post_delete, sender=PaperPdf)
def record_search_change(sender, instance: PaperPdf, using: str, **kwargs) -> None:
    SearchChange.objects.record([instance.paper_id], using=using)
