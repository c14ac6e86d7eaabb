"""Exports prepared in the background: started from a page, written by a worker, kept a while.

`annotations.tasks.start_export` records the job and enqueues the task that writes it; the
worker calls `write_job`, which claims the job first so that two workers never write one job
twice. A member keeps at most EXPORT_JOBS_MEMBER_KEPT prepared files and
EXPORT_JOBS_MEMBER_BYTES of them (`check_kept`); a job's file is deleted with its row
(annotations.signals), and `prune_exports` sweeps files no row names.
"""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.files import File
from django.db.models import Count, Sum
from django.http import Http404
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.formats import date_format

from annotations.export_files import write_export
from annotations.export_sources import source_for_path
from annotations.models import EXPORT_FILES_FOLDER, PENDING_EXPORT_STATUSES, ExportJob, ExportStatus

logger = logging.getLogger(__name__)
# A job still unfinished this long after it was asked for lost its worker (killed, restarted):
# it no longer stops its owner from asking again.
STALE_AFTER = timedelta(hours=1)


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


def fail_stale_jobs(user) -> None:
    """A job unfinished STALE_AFTER after it was asked for lost its worker: failed, it stops
    holding the member's one pending place."""
    ExportJob.objects.filter(
        owner=user,
        status__in=PENDING_EXPORT_STATUSES,
        created_at__lt=timezone.now() - STALE_AFTER,
    ).update(
        status=ExportStatus.FAILED,
        error="The export was not written in time. Try again.",
        finished_at=timezone.now(),
    )


def _claim(job_id: int) -> ExportJob | None:
    """The queued job, now marked running; None if another worker has it or it is gone."""
    claimed = ExportJob.objects.filter(pk=job_id, status=ExportStatus.QUEUED).update(
        status=ExportStatus.RUNNING
    )
    if not claimed:
        return None
    return ExportJob.objects.select_related("owner").get(pk=job_id)


def write_job(job_id: int) -> None:
    """Write a queued job's file through the storage API and mark it done (or failed, with a
    reason its owner can read)."""
    job = _claim(job_id)
    if job is None:
        return
    try:
        source, extension = source_for_path(job.owner, job.path)
        written = write_export(extension, source.batches(), list_columns=source.list_columns)
        with written.file:
            name = f"{job.pk}-{secrets.token_hex(8)}.{extension}"
            job.file.save(name, File(written.file), save=False)
        job.entries = written.entries
        job.size = written.size
        job.status = ExportStatus.DONE
    except Http404:
        job.status = ExportStatus.FAILED
        job.error = (
            "These papers are no longer there for you (the list was deleted or made private)."
        )
    except Exception:
        logger.exception("export job %s failed", job.pk)
        job.status = ExportStatus.FAILED
        job.error = "The export could not be written. Try again, or tell a curator."
    job.finished_at = timezone.now()
    job.save(update_fields=["file", "entries", "size", "status", "error", "finished_at"])


def prune_exports(now=None) -> tuple[int, int]:
    """Delete jobs older than EXPORT_FILE_DAYS days (days past any worker's run), their
    files with them, then the files of the exports folder that no job names (`sweep_files`);
    how many of each."""
    now = now or timezone.now()
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
