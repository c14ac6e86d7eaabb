"""Running feeds (papers.models_feeds.Feed): claim one, fetch and import it through
papers.sources.runs, record the outcome on it.

Whoever runs a feed (the daily `manage.py fetch_feeds`, or the task worker after a curator's
"Fetch now") first claims it (operations.claims): of two workers, or a worker and the cron
line, only one runs the feed. A run holds the feed for CLAIM_FOR; one that outlives it (its
worker killed, or far slower than any run should be) may be taken over by the next run, and
then records nothing over it. A feed queued for STALE_AFTER was not taken by a worker and may
be queued or run again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

from operations import claims
from papers.models import Feed, Paper
from papers.models_feeds import STALE_AFTER
from papers.signals import feed_added_papers
from papers.sources.runs import (
    Run,
    RunFailed,
    fetch_arxiv_into_catalogue,
    fetch_venue_into_catalogue,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)
# Longer than any feed's run takes (a large venue's fetch and import take minutes).
CLAIM_FOR = timedelta(hours=2)


@dataclass(frozen=True)
class Outcome:
    feed: Feed
    ok: bool
    line: str  # one line for a log or a terminal


def not_queued(now: datetime) -> Q:
    """Feeds not waiting for a worker: not queued, or queued so long ago that no worker will
    take them."""
    return ~Q(last_status=Feed.Status.QUEUED) | Q(status_changed_at__lt=now - STALE_AFTER)


def idle(now: datetime) -> Q:
    """Feeds nobody is running or waiting to run."""
    return claims.free(now) & not_queued(now)


def due_feeds(now: datetime | None = None) -> list[Feed]:
    """The enabled feeds due at `now`. Decided in Python: a lab follows a few dozen feeds at
    most, and each has its own period."""
    now = now or timezone.now()
    return [feed for feed in Feed.objects.filter(enabled=True) if feed.is_due(now)]


def _claim(feed_id: int, *, queued: bool) -> claims.Claim[Feed] | None:
    """The feed, now held and marked running; None when another worker has it (or it is
    gone). The task claims the feed it queued; the command claims any feed nobody is running
    or waiting to run."""
    now = timezone.now()
    condition = Q(last_status=Feed.Status.QUEUED) if queued else not_queued(now)
    return claims.claim(
        Feed.objects.filter(condition),
        feed_id,
        CLAIM_FOR,
        now=now,
        last_status=Feed.Status.RUNNING,
        status_changed_at=now,
        last_run_at=now,
    )


def run_queued_feed(feed_id: int, *, user_id: int | None = None) -> Outcome | None:
    """The task worker's part of "Fetch now" (the curator who asked is `user_id`, recorded
    on the import); None when the feed was not queued."""
    claim = _claim(feed_id, queued=True)
    if claim is None:
        return None
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    return _run_claimed(claim, invoked_by=f"feed {claim.row} (fetched from the admin)", user=user)


def run_feed(feed: Feed, *, dry_run: bool = False) -> Outcome:
    """Run `feed` now (manage.py fetch_feeds). A dry run writes nothing, on the feed either."""
    if dry_run:
        try:
            run = _fetch(feed, dry_run=True, invoked_by="", user=None)
        except RunFailed as error:
            return Outcome(feed, False, f"{feed}: failed: {error}")
        broken = f"incomplete: {run.broken}; " if run.broken else ""
        return Outcome(feed, run.broken is None, f"{feed}: {broken}{_counts_line(run)}")
    claim = _claim(feed.pk, queued=False)
    if claim is None:
        return Outcome(feed, True, f"{feed}: skipped, another worker is running it")
    return _run_claimed(claim, invoked_by=f"manage.py fetch_feeds: feed {claim.row}", user=None)


def _run_claimed(claim: claims.Claim[Feed], *, invoked_by: str, user: User | None) -> Outcome:
    """Run the claimed feed and record its outcome on it, in the UPDATE that lets it go: only
    what a run writes, as a curator may edit the feed (disable it) while it runs."""
    feed, started = claim.row, timezone.now()
    try:
        run = _fetch(feed, dry_run=False, invoked_by=invoked_by[:200], user=user)
    except Exception as error:
        # One feed's failure is recorded on it; the caller goes on with the others. A bug
        # (not a RunFailed) is logged with its traceback too.
        if not isinstance(error, RunFailed):
            logger.exception("feed %s failed", feed.pk)
        message = str(error) or type(error).__name__
        recorded = claim.release(
            last_status=Feed.Status.FAILED, last_error=message, status_changed_at=timezone.now()
        )
        return _outcome(feed, recorded, ok=False, line=f"failed: {message}")
    total = run.report.total
    if run.broken:
        # What it fetched is imported; the curators see the feed failed, and why, and its next
        # run goes on from the page that broke it off.
        status = Feed.Status.FAILED
        problem = f"{run.broken}; the next run goes on from start={run.broken.start}"
        resume_start = run.broken.start
    else:
        status, problem, resume_start = Feed.Status.OK, "", None
    recorded = claim.release(
        last_status=status,
        last_error=problem,
        arxiv_resume_start=resume_start,
        last_created=total.created,
        last_updated=total.updated,
        last_unchanged=total.unchanged,
        last_import_id=run.report.import_run_id,
        status_changed_at=timezone.now(),
    )
    if total.created:  # imported and committed, whoever holds the feed now
        added = Paper.objects.filter(created_at__gte=started).values_list("pk", flat=True)
        feed_added_papers.send(Feed, paper_ids=list(added), feed_id=feed.pk)
    if run.broken:
        line = f"failed: {problem}; {_counts_line(run)}"
        return _outcome(feed, recorded, ok=False, line=line)
    return _outcome(feed, recorded, ok=True, line=_counts_line(run))


def _outcome(feed: Feed, recorded: bool, *, ok: bool, line: str) -> Outcome:
    if recorded:
        return Outcome(feed, ok, f"{feed}: {line}")
    logger.warning("feed %s: the run outlived its claim and another took over", feed.pk)
    return Outcome(
        feed, ok, f"{feed}: {line} (not recorded: this run outlived its claim, another took over)"
    )


def _fetch(feed: Feed, *, dry_run: bool, invoked_by: str, user: User | None) -> Run:
    if feed.kind == Feed.Kind.ARXIV:
        return fetch_arxiv_into_catalogue(
            feed.target,
            start=feed.arxiv_resume_start or 0,
            sort=feed.arxiv_sort,
            dry_run=dry_run,
            invoked_by=invoked_by,
            user=user,
        )
    return fetch_venue_into_catalogue(
        feed.target, dry_run=dry_run, invoked_by=invoked_by, user=user
    )


def _counts_line(run: Run) -> str:
    prefix = "dry run, would have: " if run.report.dry_run else ""
    return f"{run.summary}; {prefix}{run.report.total.summary()}"
