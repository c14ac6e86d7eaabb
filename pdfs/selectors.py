"""Which papers' PDFs to fetch."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from papers.models import Paper


def papers_to_fetch(
    *, paper_ids: Iterable[int] = (), refetch: bool = False, limit: int | None = None
) -> QuerySet[Paper]:
    """Papers with a PDF link and, unless `refetch`, no stored PDF; only `paper_ids` if given.
    Oldest first, so a run cut short by `limit` is continued by the next one."""
    papers = Paper.objects.exclude(pdf_url="")
    ids = list(paper_ids)
    if ids:
        papers = papers.filter(pk__in=ids)
    if not refetch:
        papers = papers.filter(pdf_file__isnull=True)
    papers = papers.order_by("pk")
    return papers[:limit] if limit is not None else papers
