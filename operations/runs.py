"""Scheduled commands run once at a time across servers, and their outcome recorded.

Each server of a deployment can carry the same crontab: a run first claims its job's row with
one conditional UPDATE (as Django's own `select_for_update` would, without holding a
transaction open for the whole run), so of two runs started together one goes ahead and the
other says so and stops. The claim expires (LEASE), so a run killed mid-way does not block the
job for good. The outcome (success, or failure and its message) is written when the run ends,
for the admin's list of scheduled jobs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from operations.models import ScheduledJob

# Longer than any scheduled command takes (recommendations for a large lab take minutes).
LEASE = timedelta(hours=6)
_ERROR_MAX = 2000


class AlreadyRunning(Exception):
    """Another run holds the job."""


@contextmanager
def scheduled_run(name: str) -> Iterator[ScheduledJob]:
    """Hold job `name` for the block and record how it ended; AlreadyRunning if another run
    holds it."""
    now = timezone.now()
    job, _ = ScheduledJob.objects.get_or_create(name=name)
    free = Q(held_until__isnull=True) | Q(held_until__lte=now)
    claimed = ScheduledJob.objects.filter(free, pk=job.pk).update(
        held_until=now + LEASE, started_at=now
    )
    if not claimed:
        raise AlreadyRunning(name)
    try:
        yield job
    except BaseException as error:  # an interrupted run is a failed one too
        message = str(error) or type(error).__name__
        ScheduledJob.objects.filter(pk=job.pk).update(
            held_until=None, failed_at=timezone.now(), error=message[:_ERROR_MAX]
        )
        raise
    ScheduledJob.objects.filter(pk=job.pk).update(held_until=None, succeeded_at=timezone.now())
