"""Which papers' PDFs to fetch."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from papers.models import Feed, Paper
from papers.sources.openreview_api import source_for


def papers_to_fetch(
    *,
    paper_ids: Iterable[int] = (),
    refetch: bool = False,
    retry_refused: bool = False,
    limit: int | None = None,
) -> QuerySet[Paper]:
    """Papers with a PDF link and, unless `refetch`, no PDF from that source: none stored,
    or only a member's upload; only `paper_ids` if given. A link refused lately waits
    (pdfs.storing.record_refusal) unless `retry_refused`, or the papers are named. Oldest
    first, so a run cut short by `limit` is continued by the next.

    An upload never stops the source's file from being fetched (a member's junk once did):
    where the link gives a PDF, it replaces the upload; where the link is refused, the upload
    stays and the link waits as any refused link does."""
    papers = Paper.objects.exclude(pdf_url="")
    ids = list(paper_ids)
    if ids:
        papers = papers.filter(pk__in=ids)
    if not refetch:
        papers = papers.filter(Q(pdf_file__isnull=True) | Q(pdf_file__source_url=""))
    if not (ids or retry_refused):
        papers = papers.exclude(waiting_after_refusal())
    papers = papers.order_by("pk")
    return papers[:limit] if limit is not None else papers


def feed_papers(feed: Feed) -> QuerySet[Paper]:
    """The papers a feed brings: a venue's, every paper its source supplied; an arXiv query's,
    those its last fetch imported (every arXiv query imports as the one source arxiv-api, so
    which query brought a paper before that is not recorded)."""
    if feed.kind == Feed.Kind.OPENREVIEW:
        return Paper.objects.filter(source_records__source=source_for(feed.target))
    if feed.last_import_id is None:
        return Paper.objects.none()
    return Paper.objects.filter(
        Q(created_by_import=feed.last_import_id) | Q(changed_by_import=feed.last_import_id)
    )


def waiting_after_refusal() -> Q:
    """Papers whose present link was refused and whose wait is not over."""
    return Q(
        pdf_fetch_failure__url=F("pdf_url"),
        pdf_fetch_failure__retry_after__gt=timezone.now(),
    )


def waiting_count() -> int:
    return Paper.objects.exclude(pdf_url="").filter(waiting_after_refusal()).count()


def pending_tasks(task_path: str) -> int:
    """Tasks of `task_path` waiting for the worker or running, whoever queued them."""
    return DBTaskResult.objects.filter(
        task_path=task_path, status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING]
    ).count()
