"""A task worker run in the test's process, as `manage.py task_worker` runs it: by default
operations.worker.ResilientWorker over the `default` queue until the queue is empty (`batch`),
without the start-up delay."""

from __future__ import annotations

from typing import Any

from django_tasks_db.management.commands.db_worker import Worker

from operations.worker import ResilientWorker


def in_process_worker(
    cls: type[Worker] = ResilientWorker,
    *,
    queues: tuple[str, ...] = ("default",),
    max_tasks: int | None = None,
    batch: bool = True,
    interval: float = 0,
    **options: Any,  # ResilientWorker's own: watch
) -> Worker:
    return cls(
        queue_names=list(queues),
        interval=interval,
        batch=batch,
        backend_name="default",
        startup_delay=False,
        max_tasks=max_tasks,
        worker_id="test-worker",
        excluded_queue_names=[],
        **options,
    )
