"""A task interrupted by a stopped worker is seen, and resumed or failed, never "running"
forever (issue 38, point 2; operations.heartbeats).

Workers record that they are alive; a sweep finds a task RUNNING on a worker not seen for
TASK_WORKER_LOST_SECONDS: a resumable task (work that may be done twice) is queued again once,
with its arguments, queue and priority, the interrupted row marked failed saying so; another
task is marked failed; a resumed task interrupted again is only failed. Two sweeps at once
queue it once.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks import TaskResultStatus, task
from django_tasks_db.models import DBTaskResult

from operations import heartbeats
from operations.models import TaskResumption, WorkerHeartbeat
from operations.queues import BULK_PRIORITY, BULK_QUEUE, resumable
from tests.task_workers import in_process_worker

pytestmark = pytest.mark.django_db

LOST = 120  # settings.TASK_WORKER_LOST_SECONDS


@resumable
@task(priority=BULK_PRIORITY, queue_name=BULK_QUEUE)
def fetch_again(paper_ids: list[int], *, note: str = "") -> str:
    return f"fetched {paper_ids} {note}"


@task()
def send_once(address: str) -> str:
    return f"sent to {address}"


@task()
def heartbeat_seen() -> bool:
    return WorkerHeartbeat.objects.filter(worker_id="test-worker").exists()


def _running(task_, *args, worker: str = "gone", minutes: float = 5, **kwargs) -> DBTaskResult:
    """A task a worker took `minutes` ago and is still running, as far as the row says."""
    row = DBTaskResult.objects.get(pk=task_.enqueue(*args, **kwargs).id)
    row.claim(worker)
    DBTaskResult.objects.filter(pk=row.pk).update(
        started_at=timezone.now() - timedelta(minutes=minutes)
    )
    row.refresh_from_db()
    return row


def _status(row: DBTaskResult) -> tuple[str, str]:
    row.refresh_from_db()
    return row.status, row.traceback


def _others(row: DBTaskResult) -> list[DBTaskResult]:
    return list(DBTaskResult.objects.exclude(pk=row.pk))


def test_an_interrupted_resumable_task_is_queued_again_once_as_it_was():
    row = _running(fetch_again, [1, 2], note="x")

    swept = heartbeats.sweep()

    assert swept.resumed == [str(row.pk)] and swept.failed == []
    assert _status(row) == ("FAILED", "interrupted: worker gone stopped; queued again")
    [again] = _others(row)
    assert again.status == TaskResultStatus.READY
    assert again.task_path == row.task_path
    assert again.args_kwargs == {"args": [[1, 2]], "kwargs": {"note": "x"}}
    assert (again.queue_name, again.priority) == (BULK_QUEUE, BULK_PRIORITY)
    assert TaskResumption.objects.get(task_id=again.pk).interrupted_task_id == row.pk
    # What the task result says (the admin and TaskResult.errors read it).
    assert row.task_result.errors[0].exception_class is heartbeats.WorkerStopped


def test_an_interrupted_task_that_may_not_run_twice_is_failed():
    row = _running(send_once, "alice@example.org")

    swept = heartbeats.sweep()

    assert swept.failed == [str(row.pk)] and swept.resumed == []
    assert _status(row) == ("FAILED", "interrupted: worker gone stopped")
    assert _others(row) == []


def test_a_resumed_task_interrupted_again_is_only_failed():
    first = _running(fetch_again, [7])
    heartbeats.sweep()
    [again] = _others(first)
    again.claim("gone too")
    DBTaskResult.objects.filter(pk=again.pk).update(
        started_at=timezone.now() - timedelta(minutes=5)
    )

    swept = heartbeats.sweep()

    assert swept.failed == [str(again.pk)]
    assert _status(again) == ("FAILED", "interrupted: worker gone too stopped")
    assert DBTaskResult.objects.count() == 2  # no third try


def test_a_task_of_a_worker_seen_lately_is_left_running():
    heartbeats.beat("alive", queues=["default"])
    busy = _running(send_once, "bob@example.org", worker="alive", minutes=30)
    lost = _running(send_once, "carol@example.org", worker="gone", minutes=30)

    heartbeats.sweep()

    assert busy.status == _status(busy)[0] == "RUNNING"
    assert _status(lost)[0] == "FAILED"  # the positive control


def test_a_worker_not_seen_for_the_limit_is_taken_for_stopped(settings):
    heartbeats.beat("quiet", queues=["default"], now=timezone.now() - timedelta(seconds=LOST + 5))
    row = _running(send_once, "dan@example.org", worker="quiet")

    heartbeats.sweep()

    assert _status(row)[0] == "FAILED"


def test_a_task_started_lately_is_left_even_without_a_heartbeat():
    # A worker that records no heartbeat (django-tasks-db's own db_worker) is not swept under a
    # task it has just taken; past the limit it is.
    row = _running(send_once, "erin@example.org", worker="db_worker", minutes=1)
    heartbeats.sweep()
    assert _status(row)[0] == "RUNNING"
    heartbeats.sweep(now=timezone.now() + timedelta(seconds=LOST))
    assert _status(row)[0] == "FAILED"


def test_two_sweeps_that_read_the_same_lost_task_queue_it_once():
    row = _running(fetch_again, [3])
    seen_by_both = heartbeats.lost_tasks()
    assert [lost.pk for lost in seen_by_both] == [row.pk]

    heartbeats.sweep()  # the first
    late = heartbeats.Swept()
    settled = [heartbeats.settle(lost, now=timezone.now(), swept=late) for lost in seen_by_both]

    assert settled == [False] and late == heartbeats.Swept()
    assert DBTaskResult.objects.filter(status=TaskResultStatus.READY).count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_workers_sweeping_at_the_same_moment_queue_it_once(shared_database):
    rows = [_running(fetch_again, [n]) for n in range(5)]
    shared_database.share()
    try:
        first, second = shared_database.at_once([heartbeats.sweep, heartbeats.sweep])
        ready = shared_database.read(
            lambda: sorted(
                row.args_kwargs["args"][0][0]
                for row in DBTaskResult.objects.filter(status=TaskResultStatus.READY)
            )
        )
    finally:
        shared_database.restore()
    assert sorted(first.resumed + second.resumed) == sorted(str(row.pk) for row in rows)
    assert ready == [0, 1, 2, 3, 4]


# The worker: its heartbeat, and its sweep at its start.


@pytest.mark.django_db(transaction=True)
def test_a_worker_is_seen_while_it_runs_and_forgotten_when_it_stops():
    result = heartbeat_seen.enqueue()
    in_process_worker(queues=("*",)).run()
    assert DBTaskResult.objects.get(pk=result.id).return_value is True
    assert not WorkerHeartbeat.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_starting_worker_resumes_what_a_stopped_one_left_and_runs_it():
    row = _running(fetch_again, [9])
    in_process_worker(queues=("*",)).run()
    assert _status(row)[0] == "FAILED"
    [again] = _others(row)
    assert (again.status, again.return_value) == ("SUCCESSFUL", "fetched [9] ")


@task()
def work_a_while(seconds: float) -> str:
    time.sleep(seconds)
    return "done"


@pytest.mark.django_db(transaction=True)
def test_the_commands_worker_beats_from_its_own_thread_during_a_long_task(
    monkeypatch, shared_database
):
    monkeypatch.setattr(heartbeats, "HEARTBEAT_SECONDS", 0.05)
    work_a_while.enqueue(1.0)
    shared_database.share()
    beats: list = []
    real_beat = heartbeats.beat

    def counted(worker_id, **kwargs):
        real_beat(worker_id, **kwargs)
        beats.append(worker_id)

    monkeypatch.setattr(heartbeats, "beat", counted)
    try:
        shared_database.read(lambda: in_process_worker(queues=("*",), watch=True).run())
    finally:
        shared_database.restore()
    # One at the start and one before the task from the worker's thread; the rest from the
    # watcher's while the task slept.
    assert len(beats) >= 6, beats
