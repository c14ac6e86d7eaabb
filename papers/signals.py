"""Writes that change a paper's search document record it (SearchChange.objects.record).

Each record happens inside the transaction of the write, so the index can never miss a change
that committed. Two mechanisms cover the write paths:

Model signals, for single objects and for querysets deleted through Django's collector:
  Paper       post_save (skipped when update_fields names no field of
              search.document_fields.PAPER_FIELDS);
              pre_delete + post_delete: admin delete view, "delete selected", paper.delete()
  PaperTag    post_save: a lab tag added by a member (annotations.services.add_lab_tag);
              pre_delete + post_delete: a lab tag removed, an admin inline row removed
  Authorship  post_save only (a delete receiver would stop Django deleting authorships with
              one fast DELETE, which the importer relies on); deletions are covered by the
              Paper and Author receivers (cascades) and by the explicit calls below
  Author      pre_delete + post_delete: its authorships go with it
  Tag         pre_save + post_save when its kind changes (documents hold tag ids per kind;
              search.document_fields.TAG_FIELDS);
              pre_delete + post_delete: its paper tags go with it. A rename needs nothing:
              documents hold tag ids, not names.
Deletions collect paper ids in pre_delete (the rows still exist then) and record them all
once, at the first post_delete of the same collector run, which is still inside its
transaction: deleting 1,000 papers is one record, not 1,000.

Explicit record() calls, for bulk writes that send no signals:
  the importer (bulk_create / bulk_update / queryset delete)  importing.loader.Loader.load
  author lists rewritten: rename, merge, admin author inline  services.refresh_author_names
  papers merged (tags and authors moved by update; the merged
  papers' deletions record themselves)                        services.merge_papers, through
                                                              services.refresh_author_names
  a paper's author list refreshed by the model                Paper.refresh_author_names
  the admin tag inline (bulk_create)                          PaperAdmin._save_paper_tags
  tags merged (paper tags moved by update)                    tags.service.merge_tags
  tags added by settling an import conflict (bulk_create)     conflicts.settle_conflicts
  lab tags a Zotero pull adds (bulk_create)                   zotero.writes.Additions

Not recorded, because no document holds them: curation fields (needs_curation, reviewed_at,
curator_edited_fields, ...), links, tag names, notes, comments and reading lists.

A bare model save() outside any transaction commits the row before its post_save receiver
records it (Django saves in autocommit there); every write path of the site runs inside a
transaction (admin views, services, Model.delete), so its record commits with it.
"""

from __future__ import annotations

import threading

from django.db.models.signals import post_delete, post_save, pre_delete, pre_save
from django.dispatch import Signal, receiver

from papers.models import Author, Authorship, Paper, PaperTag, SearchChange, Tag
from papers.search.document_fields import PAPER_FIELDS, TAG_FIELDS

# Sent by the importer (importing.loader.Loader.load), inside its transaction, with
# `paper_ids`: the existing papers whose abstract it changed. Bulk updates send no post_save;
# what hangs on an abstract (annotations' anchored comments) listens here, so papers needs
# to know nothing about it.
abstracts_changed = Signal()

# Sent by services.merge_papers, inside its transaction and before the merged papers are
# deleted, with `target` (the kept paper), `other_ids` (the merged papers' ids, in order) and
# `result` (the PaperMergeResult, whose `moved` counts by model what a receiver moved).
# Foreign keys to a paper move by themselves; what hangs on a paper one to one (the pdfs app's
# stored PDF) listens here, so papers needs to know nothing about it.
papers_merging = Signal()

# Sent by a feed run (papers.sources.feeds), once its import is committed, with `paper_ids`
# (the papers it added to the catalogue) and `feed_id`. The pdfs app starts a bulk PDF run
# when the feed asks for one.
feed_added_papers = Signal()

# Sent by link_fetches.run, inside the transaction that records a fetch by link's outcome,
# with `fetch_ids`: the finished requests (the one whose task fetched the paper and those
# that followed it). What a member asked to happen with the paper (annotations puts it on a
# reading list) listens here and commits with the outcome; it may be sent again for the same
# requests, and a receiver does its work once.
link_fetch_finished = Signal()

# Paper fields a search document is built from (papers/search/document_fields.py).
INDEXED_PAPER_FIELDS = PAPER_FIELDS

_pending = threading.local()


def _collect(using: str, paper_ids) -> None:
    if not hasattr(_pending, "ids"):
        _pending.ids = {}
    _pending.ids.setdefault(using, set()).update(paper_ids)


@receiver(pre_delete, sender=Paper)
def _paper_deleting(sender, instance: Paper, using: str, **kwargs) -> None:
    _collect(using, [instance.pk])


@receiver(pre_delete, sender=PaperTag)
def _paper_tag_deleting(sender, instance: PaperTag, using: str, **kwargs) -> None:
    _collect(using, [instance.paper_id])


@receiver(pre_delete, sender=Author)
def _author_deleting(sender, instance: Author, using: str, **kwargs) -> None:
    rows = Authorship.objects.using(using).filter(author_id=instance.pk)
    _collect(using, rows.values_list("paper_id", flat=True))


@receiver(pre_delete, sender=Tag)
def _tag_deleting(sender, instance: Tag, using: str, **kwargs) -> None:
    rows = PaperTag.objects.using(using).filter(tag_id=instance.pk)
    _collect(using, rows.values_list("paper_id", flat=True))


@receiver(post_delete, sender=Paper)
@receiver(post_delete, sender=PaperTag)
@receiver(post_delete, sender=Author)
@receiver(post_delete, sender=Tag)
def _record_deleted(sender, using: str, **kwargs) -> None:
    # The collector sends every pre_delete before the first post_delete: the first one here
    # records the whole deletion, the others find nothing pending.
    ids = getattr(_pending, "ids", {}).pop(using, None)
    if ids:
        SearchChange.objects.record(ids, using=using)


@receiver(post_save, sender=Paper)
def _paper_saved(sender, instance: Paper, using: str, update_fields=None, **kwargs) -> None:
    if update_fields is not None and not INDEXED_PAPER_FIELDS.intersection(update_fields):
        return
    SearchChange.objects.record([instance.pk], using=using)


@receiver(post_save, sender=Authorship)
@receiver(post_save, sender=PaperTag)
def _link_saved(sender, instance: Authorship | PaperTag, using: str, **kwargs) -> None:
    SearchChange.objects.record([instance.paper_id], using=using)


@receiver(pre_save, sender=Tag)
def _tag_saving(sender, instance: Tag, using: str, **kwargs) -> None:
    if instance.pk is None:
        instance._indexed_values = None
        return
    stored = Tag.objects.using(using).filter(pk=instance.pk).values_list(*TAG_FIELDS)
    instance._indexed_values = stored.first()


@receiver(post_save, sender=Tag)
def _tag_saved(sender, instance: Tag, created: bool, using: str, **kwargs) -> None:
    before = getattr(instance, "_indexed_values", None)
    if created or before is None or before == tuple(getattr(instance, f) for f in TAG_FIELDS):
        return
    rows = PaperTag.objects.using(using).filter(tag_id=instance.pk)
    SearchChange.objects.record(rows.values_list("paper_id", flat=True), using=using)
