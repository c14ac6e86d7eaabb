"""`db_worker`, with a worker that waits out a database outage (operations.worker)."""

from __future__ import annotations

import os

from django.core.management.base import CommandError
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands import db_worker

from operations.worker import ResilientWorker


class Command(db_worker.Command):
    help = (
        "Run the background task worker (django-tasks-db's db_worker, same options) that "
        "survives a database outage: it retries with a capped backoff and carries on. It "
        "records that it is alive, and resumes or fails the tasks a stopped worker left running."
    )

    # db_worker's handle() builds its own Worker class, so its few lines are repeated here
    # with ours (same options, same autoreload rule).
    def handle(
        self,
        *,
        verbosity: int,
        queue_name: str,
        interval: float,
        batch: bool,
        backend_name: str,
        startup_delay: bool,
        reload: bool,
        max_tasks: int | None,
        worker_id: str,
        exclude_queues: str,
        **options,
    ) -> None:
        self.configure_logging(verbosity)
        if reload and batch:
            db_worker.logger.warning("--reload and --batch cannot be used together: no reload.")
            reload = False
        queue_names = queue_name.split(",")
        excluded_queue_names = exclude_queues.split(",") if exclude_queues else []
        if excluded_queue_names and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = ResilientWorker(
            queue_names=queue_names,
            interval=interval,
            batch=batch,
            backend_name=backend_name,
            startup_delay=startup_delay,
            max_tasks=max_tasks,
            worker_id=worker_id,
            excluded_queue_names=excluded_queue_names,
            watch=True,
        )
        if not reload:
            worker.configure_signals()
            worker.run()
            return
        if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":  # only the child handles signals
            worker.configure_signals()
        run_with_reloader(worker.run)
