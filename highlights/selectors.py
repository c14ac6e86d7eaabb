"""Reads, each scoped to what the given user may see (HighlightQuerySet.visible_to)."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from annotations.models import Note, ReadingList
from highlights.models import Highlight, HighlightQuerySet
from papers.models import Paper


def _with_replies(highlights: HighlightQuerySet) -> HighlightQuerySet:
    return highlights.annotate(
        reply_count=Count("comment__replies", filter=Q(comment__replies__removed_at__isnull=True))
    )


def paper_highlights(user, paper: Paper, *, newest_first: bool = False) -> list[Highlight]:
    """The paper's highlights `user` may see, in page order (the reader) or newest first (the
    panel), with authors and reply counts: one query."""
    highlights = _with_replies(Highlight.objects.filter(paper=paper).visible_to(user))
    ordered = highlights.newest_first() if newest_first else highlights.in_page_order()
    return list(ordered.select_related("author"))


def list_highlights(user, reading_list: ReadingList, *, limit: int) -> list[Highlight]:
    """The newest `limit` highlights `user` may see on the list's papers, with their authors
    and papers (titles only): one query."""
    return list(
        Highlight.objects.filter(paper__reading_list_items__reading_list=reading_list)
        .visible_to(user)
        .select_related("author", "paper")
        .defer("paper__abstract")
        .newest_first()[:limit]
    )


def visible_highlight(user, pk: int) -> Highlight | None:
    return (
        _with_replies(Highlight.objects.visible_to(user))
        .select_related("author", "paper__pdf_file")
        .defer("paper__abstract")
        .filter(pk=pk)
        .first()
    )


def own_highlights(user, paper_ids) -> QuerySet[Highlight]:
    """`user`'s own highlights (private and shared) on these papers, in page order."""
    return Highlight.objects.filter(author=user, paper_id__in=paper_ids).in_page_order()


def own_notes_and_highlights(user, paper_ids) -> tuple[dict, dict]:
    """`user`'s notes and own highlights on these papers, each as paper id -> list (notes
    oldest first, highlights in page order): two queries."""
    notes: dict[int, list[Note]] = {}
    for note in Note.objects.filter(owner=user, paper_id__in=paper_ids).order_by(
        "created_at", "pk"
    ):
        notes.setdefault(note.paper_id, []).append(note)
    highlights: dict[int, list[Highlight]] = {}
    for highlight in own_highlights(user, paper_ids):
        highlights.setdefault(highlight.paper_id, []).append(highlight)
    return notes, highlights


def list_papers(reading_list: ReadingList) -> list[Paper]:
    """The list's papers in list order, without their abstracts: one query."""
    return list(
        Paper.objects.filter(reading_list_items__reading_list=reading_list)
        .defer("abstract")
        .order_by("reading_list_items__position", "reading_list_items__pk")
    )
