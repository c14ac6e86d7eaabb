"""A feed's bulk PDF download (PdfRun): opt-in, counted before it starts, capped, followed in
the admin, stoppable, and always behind members' work.

A curator starts one from the feed's admin after a page that shows how many PDFs it would
fetch and about how large they are (`plan`); a feed with `download_pdfs` on starts one after
each fetch that added papers, over those papers (pdfs.signals). Either way the run's papers
are chosen when it starts, at most the feed's `pdf_run_cap`, and fetched BATCH_SIZE at a time
by tasks on the bulk queue at BULK_PRIORITY (operations.queues): each batch claims the run
(operations.claims), fetches through pdfs.runs, records its progress on the run and queues the
next batch. So a member's task waits at most one batch for a worker serving both queues, Stop
takes effect within one batch, and a worker stopped mid-batch loses that batch only: the batch
task is resumable (operations.heartbeats queues it again once), and a run whose batch is
failed instead ends failed, to be resumed from the admin.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Avg, F, Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django_tasks import task

from operations import claims
from operations.queues import BULK_PRIORITY, BULK_QUEUE, resumable
from papers.models import Feed, Paper
from pdfs import runs, selectors
from pdfs.models import PaperPdf, PdfRun

logger = logging.getLogger(__name__)

# Papers per batch task: small, so that Stop, and a member's task on a worker that serves both
# queues, wait little. At 10, a member's add-by-link waited 12.9 s behind a batch of a slow
# host's PDFs (2 s each, PDF_HOST_DELAY 1 s) on one worker serving '*' (bench.bulk_run_bench
# --one-worker); at 4 a batch is about two rounds of the download threads.
BATCH_SIZE = 4
# A batch's hold on its run: longer than ten PDFs take (each download has its own time
# limit); a batch whose worker stopped is taken up again once it lapses.
BATCH_LEASE = timedelta(minutes=15)
# What a PDF is taken to weigh when none is stored yet to measure (arXiv's and OpenReview's
# papers are about 2 MB: 3,218 of one venue made about 6 GB).
DEFAULT_PDF_BYTES = 2_000_000

ACTIVE = [PdfRun.Status.QUEUED, PdfRun.Status.RUNNING]
INTERRUPTED = "the worker stopped during a batch; resume the run to go on"


@dataclass(frozen=True)
class Plan:
    """What a run of a feed would fetch, for the confirmation page."""

    missing: int  # the feed's papers with a PDF link and no PDF (and no wait after a refusal)
    count: int  # what a run fetches: at most the feed's cap
    cap: int
    pdf_bytes: int  # the size taken for one PDF
    measured: bool  # pdf_bytes is the mean of the stored PDFs, not DEFAULT_PDF_BYTES

    @property
    def estimated_bytes(self) -> int:
        return self.count * self.pdf_bytes


def _to_fetch(papers: QuerySet) -> QuerySet:
    return selectors.papers_to_fetch().filter(pk__in=papers.values("pk"))


def plan(feed: Feed) -> Plan:
    missing = _to_fetch(selectors.feed_papers(feed)).count()
    mean = PaperPdf.objects.exclude(source_url="").aggregate(mean=Avg("size"))["mean"]
    return Plan(
        missing=missing,
        count=min(missing, feed.pdf_run_cap),
        cap=feed.pdf_run_cap,
        pdf_bytes=round(mean) if mean else DEFAULT_PDF_BYTES,
        measured=bool(mean),
    )


def active_run(feed: Feed) -> PdfRun | None:
    return PdfRun.objects.filter(feed=feed, status__in=ACTIVE).first()


def start_run(feed: Feed, *, user=None, paper_ids: list[int] | None = None) -> PdfRun | None:
    """Start a run over the feed's papers (or `paper_ids`) that need a PDF, at most the feed's
    cap, and queue its first batch; None when there is nothing to fetch."""
    papers = (
        selectors.feed_papers(feed) if paper_ids is None else Paper.objects.filter(pk__in=paper_ids)
    )
    ids = list(_to_fetch(papers).values_list("pk", flat=True)[: feed.pdf_run_cap])
    if not ids:
        return None
    with transaction.atomic():
        run = PdfRun.objects.create(
            feed=feed, started_by=user, paper_ids=ids, papers_total=len(ids)
        )
        _queue_batch(run.pk, 0)
    return run


def start_after_fetch(feed_id: int, paper_ids: list[int]) -> PdfRun | None:
    """The run a fetch that added `paper_ids` starts, if its feed downloads PDFs."""
    feed = Feed.objects.filter(pk=feed_id, download_pdfs=True).first()
    if feed is None or not paper_ids:
        return None
    return start_run(feed, paper_ids=paper_ids)


def _queue_batch(run_id: int, position: int, *, after: datetime | None = None) -> None:
    task = fetch_pdf_run_batch.using(run_after=after) if after else fetch_pdf_run_batch
    task.enqueue(run_id, position)


# Here rather than in pdfs/tasks.py: each batch queues the next.
@resumable
@task(priority=BULK_PRIORITY, queue_name=BULK_QUEUE)
def fetch_pdf_run_batch(run_id: int, position: int) -> str:
    """One batch of a bulk PDF run; queues the next."""
    return run_batch(run_id, position)


def run_batch(run_id: int, position: int) -> str:
    """Fetch the batch of run `run_id` that starts at `position`."""
    now = timezone.now()
    claim = claims.claim(
        PdfRun.objects.filter(status__in=ACTIVE, position=position),
        run_id,
        BATCH_LEASE,
        now=now,
        status=PdfRun.Status.RUNNING,
        started_at=Coalesce(F("started_at"), Value(now)),
    )
    if claim is None:
        return _not_claimed(run_id, position)
    run = claim.row
    if run.stop_requested:
        claim.release(status=PdfRun.Status.STOPPED, finished_at=now)
        return "stopped"
    batch = run.paper_ids[position : position + BATCH_SIZE]
    try:
        progress = _fetch_batch(batch, now)
    except BaseException as error:
        # A bug, or the worker told to stop at once: the run ends failed, resumable.
        claim.release(status=PdfRun.Status.FAILED, error=str(error)[:500] or type(error).__name__)
        raise
    return _record(claim, position + len(batch), progress)


def _not_claimed(run_id: int, position: int) -> str:
    """Another batch holds the run (a stopped worker's, until its hold lapses: wait for it),
    or this batch is stale (done, stopped, or queued twice)."""
    run = PdfRun.objects.filter(pk=run_id, status__in=ACTIVE, position=position).first()
    if run is None or run.held_until is None:
        return "nothing to do"
    _queue_batch(run_id, position, after=run.held_until + timedelta(seconds=1))
    return "held by another worker: queued again for when its hold lapses"


def _fetch_batch(batch: list[int], started: datetime) -> dict[str, int]:
    """Fetch what is still to fetch of `batch` (pdfs.runs); a link refused meanwhile, by this
    run too (a batch done again after an interruption), waits."""
    papers = selectors.papers_to_fetch(paper_ids=batch).exclude(selectors.waiting_after_refusal())
    pairs = list(papers.values_list("pk", "pdf_url")) if batch else []
    report = runs.fetch_pdfs(pairs)
    fetched = PaperPdf.objects.filter(
        paper_id__in=[pk for pk, _ in pairs], fetched_at__gte=started
    ).exclude(source_url="")
    return {
        "papers_done": sum(report.stored.values()),
        "papers_failed": len(report.refused),
        "papers_skipped": len(batch) - len(pairs),
        "bytes_fetched": fetched.aggregate(size=Sum("size"))["size"] or 0,
    }


def _record(claim: claims.Claim[PdfRun], position: int, progress: dict[str, int]) -> str:
    run = claim.row
    counts = {name: F(name) + value for name, value in progress.items()}
    summary = (
        f"{progress['papers_done']} fetched, {progress['papers_failed']} failed, "
        f"{progress['papers_skipped']} skipped, {progress['bytes_fetched']} bytes"
    )
    stopping = PdfRun.objects.filter(pk=run.pk, stop_requested=True).exists()
    if position >= len(run.paper_ids) or stopping:
        status = PdfRun.Status.STOPPED if stopping else PdfRun.Status.FINISHED
        claim.release(status=status, position=position, finished_at=timezone.now(), **counts)
        return f"{summary}; run {status}"
    with transaction.atomic():
        if claim.release(position=position, **counts):
            _queue_batch(run.pk, position)
    return summary


def request_stop(runs_: QuerySet[PdfRun]) -> int:
    """Stop these runs: one between two batches at once, one in a batch when it ends. How
    many were in progress."""
    now = timezone.now()
    in_progress = runs_.filter(status__in=ACTIVE)
    count = in_progress.update(stop_requested=True)
    in_progress.filter(claims.free(now)).update(status=PdfRun.Status.STOPPED, finished_at=now)
    return count


def resume(run: PdfRun) -> bool:
    """Go on with a stopped or failed run from its next batch; False when it is not stopped or
    failed, or its feed has a run in progress."""
    if active_run(run.feed) is not None:
        return False
    with transaction.atomic():
        resumed = claims.let_go(
            PdfRun.objects.filter(
                claims.free(timezone.now()),
                Q(status=PdfRun.Status.STOPPED) | Q(status=PdfRun.Status.FAILED),
                pk=run.pk,
            ),
            status=PdfRun.Status.QUEUED,
            stop_requested=False,
            error="",
            finished_at=None,
        )
        if resumed:
            _queue_batch(run.pk, run.position)
    return bool(resumed)


def fail_interrupted(run_id: int) -> int:
    """A batch of run `run_id` was interrupted and not queued again (operations.heartbeats):
    the run ends failed, resumable. Its holder stopped, so the claim is let go."""
    return claims.let_go(
        PdfRun.objects.filter(pk=run_id, status__in=ACTIVE),
        status=PdfRun.Status.FAILED,
        error=INTERRUPTED,
        finished_at=timezone.now(),
    )
