"""Running feeds (papers.models_feeds.Feed): claim one, fetch and import it through
papers.sources.runs, record the outcome on it.

Whoever runs a feed (the daily `manage.py fetch_feeds`, or the task worker after a curator's
"Fetch now") first claims it with one conditional UPDATE, as healthchecks' sendreports claims
each report: of two workers, or a worker and the cron line, only one sees its UPDATE change a
row and runs the feed. A feed queued or running for STALE_AFTER lost its worker and may be
claimed again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

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
BUSY = (Feed.Status.QUEUED, Feed.Status.RUNNING)
# What a run writes on its feed, and only that: a curator may edit the feed (disable it)
# while it runs.
OUTCOME_FIELDS = [
    "last_status",
    "last_error",
    "status_changed_at",
    "last_created",
    "last_updated",
    "last_unchanged",
    "last_import",
    "arxiv_resume_start",
]


@dataclass(frozen=True)
class Outcome:
    feed: Feed
    ok: bool
    line: str  # one line for a log or a terminal


def idle(now: datetime) -> Q:
    """Feeds nobody is running: not queued nor running, or so for too long."""
    return ~Q(last_status__in=BUSY) | Q(status_changed_at__lt=now - STALE_AFTER)


def due_feeds(now: datetime | None = None) -> list[Feed]:
    """The enabled feeds due at `now`. Decided in Python: a lab follows a few dozen feeds at
    most, and each has its own period."""
    now = now or timezone.now()
    return [feed for feed in Feed.objects.filter(enabled=True) if feed.is_due(now)]


def _claim(feed_id: int, *, queued: bool) -> Feed | None:
    """The feed, now marked running; None when another worker has it (or it is gone). The
    task claims the feed it queued; the command claims any feed nobody is running."""
    now = timezone.now()
    condition = Q(last_status=Feed.Status.QUEUED) if queued else idle(now)
    claimed = Feed.objects.filter(condition, pk=feed_id).update(
        last_status=Feed.Status.RUNNING, status_changed_at=now, last_run_at=now
    )
    return Feed.objects.get(pk=feed_id) if claimed else None


def run_queued_feed(feed_id: int, *, user_id: int | None = None) -> Outcome | None:
    """The task worker's part of "Fetch now" (the curator who asked is `user_id`, recorded
    on the import); None when the feed was not queued."""
    feed = _claim(feed_id, queued=True)
    if feed is None:
        return None
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    return _run_claimed(feed, invoked_by=f"feed {feed} (fetched from the admin)", user=user)


def run_feed(feed: Feed, *, dry_run: bool = False) -> Outcome:
    """Run `feed` now (manage.py fetch_feeds). A dry run writes nothing, on the feed either."""
    if dry_run:
        try:
            run = _fetch(feed, dry_run=True, invoked_by="", user=None)
        except RunFailed as error:
            return Outcome(feed, False, f"{feed}: failed: {error}")
        broken = f"incomplete: {run.broken}; " if run.broken else ""
        return Outcome(feed, run.broken is None, f"{feed}: {broken}{_counts_line(run)}")
    claimed = _claim(feed.pk, queued=False)
    if claimed is None:
        return Outcome(feed, True, f"{feed}: skipped, another worker is running it")
    return _run_claimed(claimed, invoked_by=f"manage.py fetch_feeds: feed {claimed}", user=None)


def _run_claimed(feed: Feed, *, invoked_by: str, user: User | None) -> Outcome:
    started = timezone.now()
    try:
        run = _fetch(feed, dry_run=False, invoked_by=invoked_by[:200], user=user)
    except Exception as error:
        # One feed's failure is recorded on it; the caller goes on with the others. A bug
        # (not a RunFailed) is logged with its traceback too.
        if not isinstance(error, RunFailed):
            logger.exception("feed %s failed", feed.pk)
        feed.last_status = Feed.Status.FAILED
        feed.last_error = str(error) or type(error).__name__
        feed.status_changed_at = timezone.now()
        feed.save(update_fields=["last_status", "last_error", "status_changed_at"])
        return Outcome(feed, False, f"{feed}: failed: {feed.last_error}")
    total = run.report.total
    if run.broken:
        # What it fetched is imported; the curators see the feed failed, and why, and its next
        # run goes on from the page that broke it off.
        feed.last_status = Feed.Status.FAILED
        feed.last_error = f"{run.broken}; the next run goes on from start={run.broken.start}"
        feed.arxiv_resume_start = run.broken.start
    else:
        feed.last_status = Feed.Status.OK
        feed.last_error = ""
        feed.arxiv_resume_start = None
    feed.last_created, feed.last_updated = total.created, total.updated
    feed.last_unchanged = total.unchanged
    feed.last_import_id = run.report.import_run_id
    feed.status_changed_at = timezone.now()
    feed.save(update_fields=OUTCOME_FIELDS)
    if total.created:
        added = Paper.objects.filter(created_at__gte=started).values_list("pk", flat=True)
        feed_added_papers.send(Feed, paper_ids=list(added))
    if run.broken:
        return Outcome(feed, False, f"{feed}: failed: {feed.last_error}; {_counts_line(run)}")
    return Outcome(feed, True, f"{feed}: {_counts_line(run)}")


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
