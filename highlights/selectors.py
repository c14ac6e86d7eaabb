"""Reads, each scoped to what the given user may see (HighlightQuerySet.visible_to)."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from highlights.models import Highlight
from papers.models import Paper


def _with_replies(highlights: QuerySet[Highlight]) -> QuerySet[Highlight]:
    return highlights.annotate(
        reply_count=Count("comment__replies", filter=Q(comment__replies__removed_at__isnull=True))
    )


def paper_highlights(user, paper: Paper) -> list[Highlight]:
    """The paper's highlights `user` may see, in page order, with authors and reply counts:
    one query."""
    return list(
        _with_replies(Highlight.objects.filter(paper=paper).visible_to(user))
        .select_related("author")
        .in_page_order()
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
