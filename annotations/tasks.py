"""Background tasks of the annotations app, run by the task worker (`manage.py task_worker`),
and the functions that queue them (which is why this module imports the work, and the work
never imports it).

`start_export` records the job and enqueues `prepare_export` in the same transaction (the
database task backend stores the task as a row, so either both exist or neither). A member has
at most one export being prepared at a time, and keeps at most EXPORT_JOBS_MEMBER_KEPT
prepared exports (EXPORT_JOBS_MEMBER_BYTES in all).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django_tasks import task

from annotations import export_jobs
from annotations.export_sources import source_for_path
from annotations.models import PENDING_EXPORT_STATUSES, ExportJob
from operations.queues import DEFAULT_QUEUE, MEMBER_PRIORITY


# Not resumable: an export whose worker stopped ends failed through its claim (export_jobs).
@task(priority=MEMBER_PRIORITY, queue_name=DEFAULT_QUEUE)
def prepare_export(job_id: int) -> None:
    """Write a member's large export (annotations.export_jobs.write_job)."""
    export_jobs.write_job(job_id)


class ExportPending(Exception):
    """The member already has an export being prepared."""

    def __init__(self, job: ExportJob) -> None:
        super().__init__(job.filename)
        self.job = job


def start_export(user, path: str) -> ExportJob:
    """Record and enqueue the export at `path` for `user`. Http404 when `path` is not an
    export `user` may read; ExportPending when one of theirs is still being prepared;
    export_jobs.ExportQuotaFull when they keep as many prepared exports as they may.

    One pending job per member is the database's rule (a conditional unique constraint): of
    ten requests at once, one creates the job and the others are answered with it. A lock
    could not do it: before the first job exists there is no row to lock."""
    source, extension = source_for_path(user, path)
    export_jobs.check_kept(user)
    export_jobs.fail_stopped_jobs(ExportJob.objects.filter(owner=user))

    def create() -> ExportJob:
        with transaction.atomic():
            job = ExportJob.objects.create(
                owner=user, path=path, extension=extension, filename=source.filename(extension)
            )
            prepare_export.enqueue(job.pk)
        return job

    try:
        return create()
    except IntegrityError:
        pending = ExportJob.objects.filter(owner=user, status__in=PENDING_EXPORT_STATUSES).first()
        if pending is not None:
            raise ExportPending(pending) from None
    # The pending job finished between the insert and the read: the way is free now.
    return create()
