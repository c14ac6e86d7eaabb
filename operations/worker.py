"""The task worker, made to outlive a database outage (issue 43, finding 13).

django-tasks-db's worker exits on the first OperationalError or InterfaceError it meets
outside a task (fetching, claiming, recording a result): a restart of PostgreSQL or a network
blip stopped background work until someone restarted the worker (systemd's `Restart=always`
gives up after five quick failures). This one waits for the database with a capped backoff,
logs once when an outage starts and once when it ends, and carries on with the queue.

It also records that it is alive and sweeps for the tasks stopped workers left "running"
(operations.heartbeats): at its start, before each task, and, in a thread of its own (the
command's worker: `watch`), every few seconds while a task runs or the queue is empty.
"""

from __future__ import annotations

import logging
import threading
from contextlib import suppress
from time import monotonic, sleep
from typing import Any

from django.db import DatabaseError, InterfaceError, OperationalError, connections, router
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from operations import heartbeats

logger = logging.getLogger(__name__)

# Seconds between two tries to reach the database: doubled after each failure, up to the cap.
FIRST_RETRY_SECONDS = 1.0
MAX_RETRY_SECONDS = 60.0
# What a database that is down, restarting or unreachable raises (a task's own errors are
# recorded on the task by the worker and never reach here).
OUTAGE_ERRORS = (OperationalError, InterfaceError)


class ResilientWorker(Worker):
    def __init__(self, *, watch: bool = False, **options: Any) -> None:
        """`watch`: beat and sweep in a thread of their own too, so that a long task does not
        make its worker look stopped (the command's worker; an in-process one in a test
        beats from its own thread only, at its start and before each task)."""
        super().__init__(**options)
        self.watch = watch
        self._last_beat = float("-inf")

    def run(self) -> None:
        watcher: _Watcher | None = None
        try:
            while True:
                try:
                    # At the start, and when the database is back after an outage.
                    self._beat()
                    heartbeats.sweep()
                    if self.watch and watcher is None:
                        watcher = _Watcher(self)
                    super().run()
                    return
                except OUTAGE_ERRORS as error:
                    self._wait_for_database(error)
                # The random start-up delay spreads workers started together, not reconnections.
                self.startup_delay = False
        finally:
            if watcher is not None:
                watcher.stop()
            with suppress(DatabaseError):
                heartbeats.forget(self.worker_id)

    def run_task(self, db_task_result: DBTaskResult) -> None:
        if monotonic() - self._last_beat >= heartbeats.HEARTBEAT_SECONDS:
            self._beat()
        super().run_task(db_task_result)

    def _beat(self) -> None:
        heartbeats.beat(self.worker_id, queues=self.queue_names)
        self._last_beat = monotonic()

    def _wait_for_database(self, error: Exception) -> None:
        started, tries, delay = monotonic(), 0, FIRST_RETRY_SECONDS
        logger.error(
            "Task worker %s: the database is unavailable (%s); retrying, at most %d s apart.",
            self.worker_id,
            str(error).strip() or type(error).__name__,
            MAX_RETRY_SECONDS,
        )
        while self.running:
            sleep(delay)
            tries += 1
            if database_answers(router.db_for_write(DBTaskResult)):
                logger.warning(
                    "Task worker %s: the database is back after %.0f s (%d tries); carrying on.",
                    self.worker_id,
                    monotonic() - started,
                    tries,
                )
                return
            delay = min(delay * 2, MAX_RETRY_SECONDS)


def database_answers(alias: str) -> bool:
    """Whether a new connection to the database answers a query (the old one is dropped: after
    an outage it is dead, and Django would not notice inside the worker's transaction)."""
    connection = connections[alias]
    with suppress(DatabaseError):
        connection.close()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except OUTAGE_ERRORS:
        return False
    return True


class _Watcher:
    """The worker's heartbeat and sweeps, in a daemon thread with its own database connection:
    a task may run for minutes in the worker's thread. Its first beat is a period after the
    start (the worker beat then), so a short batch run never opens a second connection."""

    def __init__(self, worker: ResilientWorker) -> None:
        self.worker = worker
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="task-worker-heartbeat", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=10)

    def _run(self) -> None:
        swept = monotonic()
        try:
            while not self.stopped.wait(heartbeats.HEARTBEAT_SECONDS):
                try:
                    heartbeats.beat(self.worker.worker_id, queues=self.worker.queue_names)
                    if monotonic() - swept >= heartbeats.SWEEP_SECONDS:
                        heartbeats.sweep()
                        swept = monotonic()
                except OUTAGE_ERRORS:
                    # The worker's own thread reports the outage; this one tries again.
                    connections.close_all()
                except Exception:
                    logger.exception("Task worker %s: heartbeat or sweep", self.worker.worker_id)
        finally:
            connections.close_all()  # this thread's connections only
