"""The task worker survives a database outage (issue 43, finding 13): it waits with a capped
backoff, logs the outage once (not once per try) and runs the queue when the database is back.

django-tasks-db's own worker (`db_worker`) exits on the first such error; the site runs
`task_worker` (operations.worker) in its place: Makefile, operations.schedule, deploy/systemd.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import OperationalError, connection
from django_tasks import task
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from operations import worker as worker_module
from operations.schedule import Deployment, systemd_units
from operations.worker import MAX_RETRY_SECONDS, ResilientWorker
from tests.task_workers import in_process_worker

OUTAGE_LOG = "the database is unavailable"
BACK_LOG = "the database is back"


@task()
def say_done(word: str) -> str:
    return f"{word}: done"


class Outage:
    """Every query fails as a database that is down fails, until the outage ends; `sleep`
    stands in for the worker's waits, ending the outage after `waits` of them."""

    def __init__(self, waits: int) -> None:
        self.down, self.waits = True, waits
        self.slept: list[float] = []

    def __call__(self, execute, sql, params, many, context):
        if self.down:
            raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        if len(self.slept) == 1:
            # Another process enqueues a task while the worker waits (its own connection works).
            self.down = False
            say_done.enqueue("enqueued during the outage")
            self.down = True
        if len(self.slept) == self.waits:
            self.down = False


@pytest.fixture
def outage(monkeypatch):
    def start(waits: int) -> Outage:
        outage = Outage(waits)
        monkeypatch.setattr(worker_module, "sleep", outage.sleep)
        return outage

    return start


def _results() -> list[tuple[str, object]]:
    return list(DBTaskResult.objects.values_list("status", "return_value"))


def test_the_worker_waits_out_an_outage_and_runs_what_was_enqueued_meanwhile(
    transactional_db, outage, caplog
):
    down = outage(waits=10)
    with caplog.at_level(logging.INFO, logger="operations.worker"):
        with connection.execute_wrapper(down):
            in_process_worker().run()  # batch: returns once the queue is empty
    assert _results() == [("SUCCESSFUL", "enqueued during the outage: done")]
    # Doubled after each failed try, up to the cap.
    assert down.slept == [1, 2, 4, 8, 16, 32, MAX_RETRY_SECONDS, 60, 60, 60]
    logged = [record.getMessage() for record in caplog.records]
    assert sum(OUTAGE_LOG in line for line in logged) == 1, logged
    assert sum(BACK_LOG in line and "(10 tries)" in line for line in logged) == 1, logged


def test_control_django_tasks_dbs_own_worker_exits_on_the_same_outage(transactional_db, outage):
    say_done.enqueue("before the outage")
    with connection.execute_wrapper(outage(waits=3)), pytest.raises(OperationalError):
        in_process_worker(Worker).run()
    assert _results() == [("READY", None)]


def test_control_without_an_outage_the_worker_neither_waits_nor_logs(transactional_db, caplog):
    say_done.enqueue("no outage")
    with caplog.at_level(logging.INFO, logger="operations.worker"):
        in_process_worker().run()
    assert _results() == [("SUCCESSFUL", "no outage: done")]
    assert caplog.records == []


# On PostgreSQL, a real outage: the worker's backend is terminated and the database refuses
# new connections for a while; the worker, in its own thread, reconnects once it may.


def _wait_for(condition, what: str, seconds: float = 60) -> None:
    # Generous: each step takes well under a second on an idle machine.
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.05)


def _other_backends() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return [pid for (pid,) in cursor.fetchall()]


def _allow_connections(allowed: bool) -> None:
    # From the maintenance database, as Django creates the test database: PostgreSQL refuses
    # this for the database one is connected to.
    with connection._nodb_cursor() as cursor:
        name = connection.ops.quote_name(connection.settings_dict["NAME"])
        cursor.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS {str(allowed).lower()}")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL outage")
def test_postgresql_a_terminated_backend_and_refused_connections(
    transactional_db, monkeypatch, caplog
):
    monkeypatch.setattr(worker_module, "FIRST_RETRY_SECONDS", 0.05)
    monkeypatch.setattr(worker_module, "MAX_RETRY_SECONDS", 0.2)
    worker = in_process_worker(batch=False, interval=0.05)
    failure: list[BaseException] = []

    def run() -> None:
        try:
            worker.run()
        except BaseException as error:  # an exit (django-tasks-db's own worker exits here)
            failure.append(error)
        finally:
            connection.close()

    caplog.set_level(logging.INFO, logger="operations.worker")
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        _wait_for(_other_backends, "the worker's connection")
        _allow_connections(False)
        try:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM unnest(%s) AS pid", [_other_backends()]
                )
            _wait_for(lambda: OUTAGE_LOG in caplog.text or failure, "the outage to be noticed")
            say_done.enqueue("after the outage")
        finally:
            _allow_connections(True)
        _wait_for(
            lambda: _results() == [("SUCCESSFUL", "after the outage: done")] or failure,
            "the task to run",
        )
    finally:
        worker.running = False
        thread.join(timeout=30)
    assert failure == []
    assert _results() == [("SUCCESSFUL", "after the outage: done")]
    assert caplog.text.count(OUTAGE_LOG) == 1 and caplog.text.count(BACK_LOG) == 1


def test_the_command_runs_the_queue_with_the_worker_that_waits_out_outages(
    transactional_db, monkeypatch
):
    used: list[Worker] = []
    run = ResilientWorker.run

    def counted(self: ResilientWorker) -> None:
        used.append(self)
        run(self)

    monkeypatch.setattr(ResilientWorker, "run", counted)
    say_done.enqueue("by the command")
    call_command("task_worker", batch=True, startup_delay=False, verbosity=0)
    assert len(used) == 1
    assert _results() == [("SUCCESSFUL", "by the command: done")]


def test_the_site_starts_that_worker_everywhere():
    # One for each queue (operations/queues.py): `default`, and `bulk` for feeds' PDF runs.
    units = systemd_units(Deployment())
    default, bulk = units["papers-worker.service"], units["papers-worker-bulk.service"]
    assert "manage.py task_worker --queue-name default --no-startup-delay" in default
    assert "manage.py task_worker --queue-name bulk --no-startup-delay" in bulk
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text(encoding="utf-8")
    assert "db_worker" not in makefile and makefile.count("manage.py task_worker") == 3
    run = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "task_worker --queue-name default" in run and "task_worker --queue-name bulk" in run
    assert "kill $$worker $$bulk" in run  # both stop with `make run`
