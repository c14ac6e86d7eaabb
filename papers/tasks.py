"""Background tasks of the papers app, run by the task worker (`manage.py task_worker`), and
the functions that queue them (which is why this module imports the work, and the work never
imports it)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django_tasks import task

from operations.queues import DEFAULT_QUEUE, ROUTINE_PRIORITY
from papers.models import Feed
from papers.sources import feeds


# Not resumable: a feed whose worker stopped is freed by its claim's lapse and run again.
@task(priority=ROUTINE_PRIORITY, queue_name=DEFAULT_QUEUE)
def run_feed(feed_id: int, user_id: int | None = None) -> None:
    """Fetch a feed a curator queued from the admin (papers.sources.feeds.run_queued_feed)."""
    feeds.run_queued_feed(feed_id, user_id=user_id)


def enqueue_fetch(feed: Feed, *, user_id: int | None = None) -> bool:
    """Queue `feed` for the task worker; False when it is already queued or running."""
    now = timezone.now()
    with transaction.atomic():
        # The database task backend stores the task as a row in this transaction: the feed
        # is queued and its task exists, or neither.
        queued = Feed.objects.filter(feeds.idle(now), pk=feed.pk).update(
            last_status=Feed.Status.QUEUED, status_changed_at=now
        )
        if queued:
            run_feed.enqueue(feed.pk, user_id)
    return bool(queued)
