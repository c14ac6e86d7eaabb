"""Exports prepared in the background: started from a page, written by a worker, kept a while.

`annotations.tasks.start_export` records the job and enqueues the task that writes it; the
worker calls `write_job`, which claims the job first (operations.claims) so that two workers
never write one job twice, renews the claim as it writes, and records the outcome with it. A
job whose claim lapsed lost its worker (killed, restarted): it is shown failed ("The worker
stopped; ask again"), and marked so by its owner's next request or `prune_exports`; a worker
that outlived its claim records nothing and deletes what it wrote. A member keeps at most
EXPORT_JOBS_MEMBER_KEPT prepared files and EXPORT_JOBS_MEMBER_BYTES of them (`check_kept`); a
job's file is deleted with its row (annotations.signals), and `prune_exports` sweeps files no
row names.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable, Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, TypedDict, TypeVar

from django.conf import settings
from django.core.files import File
from django.db.models import BooleanField, Count, ExpressionWrapper, Q, QuerySet, Sum
from django.http import Http404
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.formats import date_format

from annotations.export_files import write_export
from annotations.export_sources import source_for_path
from annotations.models import EXPORT_FILES_FOLDER, ExportJob, ExportStatus
from operations import claims

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

logger = logging.getLogger(__name__)
T = TypeVar("T")
# How long a worker holds the job it writes without renewing its claim: it renews as the
# batches are written (claims.Claim.keep), so a lost worker shows within this.
CLAIM_FOR = timedelta(minutes=10)
# A job still waiting this long after it was asked for was not taken by a worker: no longer
# written, it stops holding its owner's one pending place.
STALE_AFTER = timedelta(hours=1)
WORKER_STOPPED = "The worker stopped; ask again."


class ExportQuotaFull(Exception):
    """The member keeps as many prepared exports as they may; the message says what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def check_kept(user) -> None:
    """ExportQuotaFull when `user` keeps EXPORT_JOBS_MEMBER_KEPT prepared exports or
    EXPORT_JOBS_MEMBER_BYTES of them. Exact without a lock: a member's jobs are written one at
    a time (one pending job each), so at most one more is added after the check."""
    kept = ExportJob.objects.filter(owner=user, status=ExportStatus.DONE).aggregate(
        files=Count("pk"), size=Sum("size")
    )
    files, size = kept["files"], kept["size"] or 0
    if files < settings.EXPORT_JOBS_MEMBER_KEPT and size < settings.EXPORT_JOBS_MEMBER_BYTES:
        return
    oldest = ExportJob.objects.filter(owner=user, status=ExportStatus.DONE).earliest("created_at")
    goes = date_format(oldest.created_at + timedelta(days=settings.EXPORT_FILE_DAYS), "j F Y")
    held = f"{files} prepared exports" if files != 1 else "1 prepared export"
    raise ExportQuotaFull(
        f"You keep {held} ({filesizeformat(size)}), as many as one member may. Delete one you no "
        f"longer need, or wait: each is deleted {settings.EXPORT_FILE_DAYS} days after it was "
        f"prepared, the oldest on {goes}."
    )


def stopped(now) -> Q:
    """Jobs no worker will finish: running but no longer held (the worker's claim lapsed), or
    waiting since STALE_AFTER."""
    running_unheld = Q(status=ExportStatus.RUNNING) & claims.free(now)
    return running_unheld | Q(status=ExportStatus.QUEUED, created_at__lt=now - STALE_AFTER)


class Stopped(TypedDict):
    stopped: bool


def with_stopped(
    jobs: QuerySet[ExportJob], now=None
) -> QuerySet[WithAnnotations[ExportJob, Stopped]]:
    """`jobs`, each with `stopped`: what a page shows as failed (WORKER_STOPPED) and stops
    waiting for, before a write marks it so (a GET writes nothing)."""
    flag = ExpressionWrapper(stopped(now or timezone.now()), output_field=BooleanField())
    return jobs.annotate(stopped=flag)


def fail_stopped_jobs(jobs: QuerySet[ExportJob]) -> int:
    """Mark the stopped jobs among `jobs` failed: each stops holding its member's one pending
    place. Conditional as a claim is: a job taken meanwhile is left alone. How many."""
    now = timezone.now()
    return claims.let_go(
        jobs.filter(stopped(now)), status=ExportStatus.FAILED, error=WORKER_STOPPED, finished_at=now
    )


def _claim(job_id: int) -> claims.Claim[ExportJob] | None:
    """The queued job, now held and marked running; None if another worker has it, it has
    waited too long (stopped) or it is gone."""
    now = timezone.now()
    waiting = ExportJob.objects.filter(
        status=ExportStatus.QUEUED, created_at__gte=now - STALE_AFTER
    )
    return claims.claim(waiting, job_id, CLAIM_FOR, now=now, status=ExportStatus.RUNNING)


def write_job(job_id: int) -> None:
    """Write a queued job's file through the storage API and mark it done (or failed, with a
    reason its owner can read), with the worker's claim: a worker that lost it records
    nothing, and deletes the file it wrote."""
    claim = _claim(job_id)
    if claim is None:
        return
    job = claim.row
    try:
        source, extension = source_for_path(job.owner, job.path)
        batches = _kept(claim, source.batches())
        written = write_export(extension, batches, list_columns=source.list_columns)
        with written.file:
            name = f"{job.pk}-{secrets.token_hex(8)}.{extension}"
            job.file.save(name, File(written.file), save=False)
        outcome = {
            "status": ExportStatus.DONE,
            "file": job.file.name,
            "entries": written.entries,
            "size": written.size,
        }
    except claims.ClaimLost:
        logger.warning("export job %s: the worker lost its claim; the job is left alone", job.pk)
        return
    except Http404:
        outcome = {
            "status": ExportStatus.FAILED,
            "error": "These papers are no longer there for you (the list was deleted or made "
            "private).",
        }
    except Exception:
        logger.exception("export job %s failed", job.pk)
        outcome = {
            "status": ExportStatus.FAILED,
            "error": "The export could not be written. Try again, or tell a curator.",
        }
    if not claim.release(**outcome, finished_at=timezone.now()):
        logger.warning("export job %s: written after the worker lost its claim; dropped", job.pk)
        if job.file:
            job.file.delete(save=False)


def _kept(claim: claims.Claim[ExportJob], batches: Iterable[T]) -> Iterator[T]:
    """`batches`, the claim renewed as they are read (ClaimLost, stopping the writing, when
    another took the job)."""
    for batch in batches:
        claim.keep()
        yield batch


def prune_exports(now=None) -> tuple[int, int]:
    """Mark the stopped jobs failed (fail_stopped_jobs); delete jobs older than
    EXPORT_FILE_DAYS days (days past any worker's run), their files with them, then the files
    of the exports folder that no job names (`sweep_files`); how many of each deleted."""
    now = now or timezone.now()
    fail_stopped_jobs(ExportJob.objects.all())
    cutoff = now - timedelta(days=settings.EXPORT_FILE_DAYS)
    old = ExportJob.objects.filter(created_at__lt=cutoff)
    count = 0
    for job in old.iterator():
        if job.file:
            job.file.delete(save=False)
        job.delete()
        count += 1
    return count, sweep_files()


def sweep_files() -> int:
    """Delete the files in the exports folder whose job is gone: a file outlives its row when
    the process died between the row's deletion and the file's, or when the row went while a
    worker was writing its file. A file whose job still exists is kept, even before the job
    names it (a worker writes the file, then records it). How many were deleted."""
    storage = ExportJob._meta.get_field("file").storage
    folder = EXPORT_FILES_FOLDER.rstrip("/")
    try:
        _, names = storage.listdir(folder)
    except FileNotFoundError:  # nothing exported yet
        return 0
    named = set(ExportJob.objects.exclude(file="").values_list("file", flat=True))
    job_ids = set(ExportJob.objects.values_list("pk", flat=True))
    swept = 0
    for name in names:
        path = f"{folder}/{name}"
        job_id, _, _ = name.partition("-")  # written as "<job id>-<random>.<extension>"
        if path in named or (job_id.isdigit() and int(job_id) in job_ids):
            continue
        storage.delete(path)
        swept += 1
    return swept
