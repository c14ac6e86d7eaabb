"""Background tasks of the papers app, run by the task worker (`manage.py db_worker`)."""

from __future__ import annotations

from django_tasks import task

from papers.sources import feeds


@task()
def run_feed(feed_id: int, user_id: int | None = None) -> None:
    """Fetch a feed a curator queued from the admin (papers.sources.feeds.run_queued_feed)."""
    feeds.run_queued_feed(feed_id, user_id=user_id)
