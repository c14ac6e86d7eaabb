"""Scheduled commands run once at a time across servers, and their outcome recorded.

Each server of a deployment can carry the same crontab: a run first claims its job's row
(operations.claims), so of two runs started together one goes ahead and the other says so and
stops. The claim lapses after CLAIM_FOR, so a run killed mid-way does not block the job for
good: the next run takes the job over and records the stopped run as failed. The outcome
(success, or failure and its message) is written when the run ends, with the run's own claim
only: a run that outlived its claim and was taken over records nothing over the newer run.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.utils import timezone

from operations import claims
from operations.models import ScheduledJob

logger = logging.getLogger(__name__)

# Longer than any scheduled command takes (recommendations for a large lab take minutes;
# fetch_pdfs --limit keeps a run within it).
CLAIM_FOR = timedelta(hours=6)
_ERROR_MAX = 2000


class AlreadyRunning(Exception):
    """Another run holds the job."""


@contextmanager
def scheduled_run(
    name: str, claim_for: timedelta = CLAIM_FOR
) -> Iterator[claims.Claim[ScheduledJob]]:
    """Hold job `name` for the block (a claim of `claim_for`) and record how it ended;
    AlreadyRunning if another run holds it."""
    now = timezone.now()
    job, _ = ScheduledJob.objects.get_or_create(name=name)
    started: dict = {"started_at": now}
    if job.held_by:  # claimed by a run that never let go: taken over only if it lapsed
        started |= {"failed_at": now, "error": _stopped(job)}
    # Claimed only if the holder is still the one read here (healthchecks' compare): what
    # is recorded of it is true.
    claim = claims.claim(
        ScheduledJob, job.pk, claim_for, now=now, was_held_by=job.held_by, **started
    )
    if claim is None:
        raise AlreadyRunning(name)
    try:
        yield claim
    except BaseException as error:  # an interrupted run is a failed one too
        message = str(error) or type(error).__name__
        _record(claim, failed_at=timezone.now(), error=message[:_ERROR_MAX])
        raise
    _record(claim, succeeded_at=timezone.now())


def _stopped(job: ScheduledJob) -> str:
    return (
        f"The run started {claims.moment(job.started_at)} ({job.held_by}) stopped before it "
        f"recorded how it ended; its claim lapsed at {claims.moment(job.held_until)}."
    )


def _record(claim: claims.Claim[ScheduledJob], **outcome) -> None:
    if not claim.release(**outcome):
        logger.warning(
            "%s: this run outlived its claim and another run took the job over; its outcome "
            "is not recorded.",
            claim.row.name,
        )
