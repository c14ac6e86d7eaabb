"""What the scheduled commands did last: when each last succeeded and failed, and why."""

from __future__ import annotations

from django.db import models

from operations.claims import Claimable


class ScheduledJob(Claimable):
    """One scheduled command (send_digests, fetch_feeds, ...): its last run's outcome, and the
    run holding it now (held_by, held_until: operations.claims), so that two servers'
    crontabs never run it at once."""

    name = models.CharField(max_length=100, unique=True)
    started_at = models.DateTimeField(null=True, blank=True)
    succeeded_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)
    # The last failure's exception, as its message says it (the traceback is in the log).
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def claim_label(self) -> str:
        return f"scheduled job {self.name}"

    @property
    def failing(self) -> bool:
        """Whether its last run failed (no success since its last failure)."""
        return self.failed_at is not None and (
            self.succeeded_at is None or self.succeeded_at < self.failed_at
        )


class WorkerHeartbeat(models.Model):
    """A task worker that is alive: it writes `seen_at` every few seconds, also while a task
    runs (operations.heartbeats). A task "running" on a worker not seen lately was
    interrupted (its process killed, its host restarted)."""

    worker_id = models.CharField(max_length=64, unique=True)  # django-tasks-db's worker ids
    queues = models.CharField(max_length=200, blank=True)
    host = models.CharField(max_length=100, blank=True)  # host name and process id
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()

    class Meta:
        ordering = ["-seen_at"]

    def __str__(self) -> str:
        return f"worker {self.worker_id}"


class TaskResumption(models.Model):
    """A task queued again in place of one a stopped worker interrupted: a resumed task that
    is interrupted again is only failed, so that a task that kills its worker cannot loop."""

    # The new task; deleted with it (manage.py prune_db_task_results).
    task = models.OneToOneField(
        "django_tasks_database.DBTaskResult",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="+",
    )
    interrupted_task_id = models.UUIDField()
    worker_id = models.CharField(max_length=64)  # the worker that stopped
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"task {self.task_id} resumes {self.interrupted_task_id}"
