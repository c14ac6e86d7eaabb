"""Background tasks of the annotations app, run by the task worker (`manage.py db_worker`)."""

from __future__ import annotations

from django_tasks import task

from annotations import export_jobs


@task()
def prepare_export(job_id: int) -> None:
    """Write a member's large export (annotations.export_jobs.write_job)."""
    export_jobs.write_job(job_id)
