"""Background tasks of the annotations app, run by the task worker (`manage.py db_worker`),
and the functions that queue them (which is why this module imports the work, and the work
never imports it).

`start_export` records the job and enqueues `prepare_export` in the same transaction (the
database task backend stores the task as a row, so either both exist or neither). A member has
at most one export being prepared at a time.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django_tasks import task

from annotations import export_jobs
from annotations.export_sources import source_for_path
from annotations.models import ExportJob, ExportStatus


@task()
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
    export `user` may read; ExportPending when one of theirs is still being prepared."""
    source, extension = source_for_path(user, path)
    with transaction.atomic():
        pending = (
            ExportJob.objects.select_for_update()
            .filter(
                owner=user,
                status__in=(ExportStatus.QUEUED, ExportStatus.RUNNING),
                created_at__gte=timezone.now() - export_jobs.STALE_AFTER,
            )
            .first()
        )
        if pending is not None:
            raise ExportPending(pending)
        job = ExportJob.objects.create(
            owner=user, path=path, extension=extension, filename=source.filename(extension)
        )
        prepare_export.enqueue(job.pk)
    return job
