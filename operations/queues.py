"""Where background work waits, and in which order (issue 38, point 2).

Two queues, each with its own worker (`make run` starts both; deploy/ has one unit each):
- `default`: a member's actions (an upload's text, a link to add, an export, a PDF they asked
  for), the text of fetched PDFs, embeddings and feeds a curator queued. Short tasks.
- `bulk`: a feed's PDF download run, cut into small batches so that stopping it, or a worker
  restart, loses at most one batch, and so that one worker serving both queues (`--queue-name
  '*'`) still reaches a member's task between two batches.

Inside a queue the worker takes the highest priority first (django-tasks-db orders by
priority, then by when the task was queued).
"""

from __future__ import annotations

from typing import TypeVar

from django_tasks.base import Task

DEFAULT_QUEUE = "default"
BULK_QUEUE = "bulk"
QUEUES = [DEFAULT_QUEUE, BULK_QUEUE]

# django-tasks accepts -100..100.
MEMBER_PRIORITY = 50  # a member waits on the page for it
TEXT_PRIORITY = 20  # makes a stored PDF searchable
ROUTINE_PRIORITY = 0  # queued by a curator or a schedule; nobody is watching the page
BULK_PRIORITY = -50  # many downloads nobody waits for

# The tasks whose work may simply be done again (fetching a PDF, reading its text, embedding
# papers, a bulk run's batch): one interrupted by a stopped worker is queued again once
# (operations.heartbeats). Their module paths; each tasks module marks its own with `resumable`.
RESUMABLE: set[str] = set()

T = TypeVar("T", bound=Task)


def resumable(task: T) -> T:
    """Mark `task` (a django-tasks Task, under its @task decorator) as safe to run again after
    an interruption."""
    RESUMABLE.add(task.module_path)
    return task
