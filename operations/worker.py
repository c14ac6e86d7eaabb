"""The task worker, made to outlive a database outage (issue 43, finding 13).

django-tasks-db's worker exits on the first OperationalError or InterfaceError it meets
outside a task (fetching, claiming, recording a result): a restart of PostgreSQL or a network
blip stopped background work until someone restarted the worker (systemd's `Restart=always`
gives up after five quick failures). This one waits for the database with a capped backoff,
logs once when an outage starts and once when it ends, and carries on with the queue.
"""

from __future__ import annotations

import logging
from contextlib import suppress
from time import monotonic, sleep

from django.db import DatabaseError, InterfaceError, OperationalError, connections, router
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

logger = logging.getLogger(__name__)

# Seconds between two tries to reach the database: doubled after each failure, up to the cap.
FIRST_RETRY_SECONDS = 1.0
MAX_RETRY_SECONDS = 60.0
# What a database that is down, restarting or unreachable raises (a task's own errors are
# recorded on the task by the worker and never reach here).
OUTAGE_ERRORS = (OperationalError, InterfaceError)


class ResilientWorker(Worker):
    def run(self) -> None:
        while True:
            try:
                super().run()
                return
            except OUTAGE_ERRORS as error:
                self._wait_for_database(error)
            # The random start-up delay spreads workers started together, not reconnections.
            self.startup_delay = False

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
