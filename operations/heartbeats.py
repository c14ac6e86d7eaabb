"""Tasks interrupted by a stopped worker: seen, and resumed or failed, never "running" forever.

django-tasks-db marks a task RUNNING when a worker takes it and records its outcome when it
ends; a worker killed in between (a restart, a deploy, the OOM killer) leaves the row RUNNING
for good. So every worker records that it is alive (`beat`, a WorkerHeartbeat row, every few
seconds and also while a task runs: operations.worker), and every worker sweeps, at its start
and each minute (`sweep`): a task RUNNING for TASK_WORKER_LOST_SECONDS on a worker not seen for
as long (or never: a worker without heartbeats, or forgotten) was interrupted. A task marked
resumable (operations.queues.resumable: its work may be done twice) is queued again once, with
the same arguments, queue and priority, and the interrupted row is marked failed saying so;
others are marked failed. A resumed task interrupted again is only failed (TaskResumption), so
that a task that kills its worker cannot loop; `task_abandoned` tells the app whose work it was
(a bulk PDF run ends failed: pdfs.signals).

Each row is settled by one conditional UPDATE from RUNNING, and the new task is queued in the
same transaction: of two workers sweeping at once, one changes the row and queues the task, the
other changes nothing and queues nothing.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from operations.models import TaskResumption, WorkerHeartbeat
from operations.queues import RESUMABLE

logger = logging.getLogger(__name__)

# A worker writes its heartbeat at most this often (and at least this often while it runs).
HEARTBEAT_SECONDS = 5.0
# A worker sweeps for interrupted tasks at its start and this often.
SWEEP_SECONDS = 60.0
# The heartbeat of a worker not seen for this long is deleted (a killed worker's row; worker
# ids are new with each process).
FORGET_AFTER = timedelta(days=1)

# Sent once an interrupted task is marked failed and not queued again, with `task_path`,
# `args` and `kwargs`: the app whose work it was records the outcome on its own rows.
task_abandoned = Signal()


class WorkerStopped(Exception):
    """The exception an interrupted task is recorded with (its "traceback" says which worker
    stopped, and whether the task was queued again)."""


WORKER_STOPPED_PATH = f"{WorkerStopped.__module__}.{WorkerStopped.__qualname__}"


def beat(worker_id: str, *, queues: list[str], now: datetime | None = None) -> None:
    """Record that worker `worker_id` is alive now."""
    now = now or timezone.now()
    WorkerHeartbeat.objects.update_or_create(
        worker_id=worker_id,
        defaults={"seen_at": now},
        create_defaults={
            "seen_at": now,
            "started_at": now,
            "queues": ",".join(queues)[:200],
            "host": f"{socket.gethostname()[:80]} pid {os.getpid()}",
        },
    )


def forget(worker_id: str) -> None:
    """A worker that stops by itself deletes its heartbeat."""
    WorkerHeartbeat.objects.filter(worker_id=worker_id).delete()


@dataclass
class Swept:
    resumed: list[str] = field(default_factory=list)  # the interrupted tasks' ids
    failed: list[str] = field(default_factory=list)


def lost_tasks(now: datetime | None = None) -> list[DBTaskResult]:
    """Tasks RUNNING for TASK_WORKER_LOST_SECONDS on a worker not seen for as long. Decided in
    Python: a few rows run at a time, and a row's worker is the last of its `worker_ids`."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.TASK_WORKER_LOST_SECONDS)
    alive = set(
        WorkerHeartbeat.objects.filter(seen_at__gt=cutoff).values_list("worker_id", flat=True)
    )
    running = DBTaskResult.objects.running().filter(started_at__lte=cutoff).order_by("started_at")
    return [row for row in running if _worker_of(row) not in alive]


def sweep(now: datetime | None = None) -> Swept:
    """Resume or fail every task a stopped worker left RUNNING; forget long-gone workers."""
    now = now or timezone.now()
    swept = Swept()
    for row in lost_tasks(now):
        settle(row, now=now, swept=swept)
    WorkerHeartbeat.objects.filter(seen_at__lt=now - FORGET_AFTER).delete()
    return swept


def settle(row: DBTaskResult, *, now: datetime, swept: Swept) -> bool:
    """Mark the interrupted task `row` failed and, if it may be, queue it again; False when it
    is no longer RUNNING (another worker's sweep settled it, or its worker finished it)."""
    worker = _worker_of(row) or "?"
    again = _task_to_resume(row)
    message = f"interrupted: worker {worker} stopped" + ("; queued again" if again else "")
    with transaction.atomic():
        changed = DBTaskResult.objects.filter(pk=row.pk, status=TaskResultStatus.RUNNING).update(
            status=TaskResultStatus.FAILED,
            finished_at=now,
            return_value=None,
            exception_class_path=WORKER_STOPPED_PATH,
            traceback=message,
        )
        if not changed:
            return False
        if again is not None:
            args = row.args_kwargs
            new = again.enqueue(*args["args"], **args["kwargs"])
            TaskResumption.objects.create(
                task_id=new.id, interrupted_task_id=row.pk, worker_id=worker
            )
    logger.warning("Task %s (%s) %s.", row.pk, row.task_path, message)
    if again is None:
        swept.failed.append(str(row.pk))
        args = row.args_kwargs
        task_abandoned.send(
            DBTaskResult, task_path=row.task_path, args=args["args"], kwargs=args["kwargs"]
        )
    else:
        swept.resumed.append(str(row.pk))
    return True


def _task_to_resume(row: DBTaskResult) -> Any:  # a Task, or None
    """The task to queue again in place of `row` (its queue and priority), or None: not
    resumable, resumed once already, or no longer in the code."""
    if TaskResumption.objects.filter(task_id=row.pk).exists():
        return None
    try:
        task = row.task  # imports the task's module, which marks it resumable or not
    except (ImportError, SuspiciousOperation):
        return None
    # The row's own queue, priority and backend (and its run_after, past by now).
    return task if row.task_path in RESUMABLE else None


def _worker_of(row: DBTaskResult) -> str:
    return str(row.worker_ids[-1]) if row.worker_ids else ""
