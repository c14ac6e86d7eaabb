"""Exports prepared in the background: started from a page, written by a worker, kept a while.

`annotations.tasks.start_export` records the job and enqueues the task that writes it; the
worker calls `write_job`, which claims the job first so that two workers never write one job
twice.
"""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.files import File
from django.http import Http404
from django.utils import timezone

from annotations.export_files import write_export
from annotations.export_sources import source_for_path
from annotations.models import ExportJob, ExportStatus

logger = logging.getLogger(__name__)
# A job still unfinished this long after it was asked for lost its worker (killed, restarted):
# it no longer stops its owner from asking again.
STALE_AFTER = timedelta(hours=1)


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
    job.save(update_fields=["file", "entries", "status", "error", "finished_at"])


def prune_exports(now=None) -> int:
    """Delete jobs older than EXPORT_FILE_DAYS days (days past any worker's run), their
    files with them; how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.EXPORT_FILE_DAYS)
    old = ExportJob.objects.filter(created_at__lt=cutoff)
    count = 0
    for job in old.iterator():
        if job.file:
            job.file.delete(save=False)
        job.delete()
        count += 1
    return count
