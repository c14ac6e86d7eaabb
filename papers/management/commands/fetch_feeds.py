"""manage.py fetch_feeds [--all] [--dry-run]"""

from __future__ import annotations

from django.core.management.base import CommandError

from operations.commands import ScheduledCommand
from papers.models import Feed
from papers.sources.feeds import due_feeds, run_feed


class Command(ScheduledCommand):
    help = (
        "Fetch the enabled feeds that are due (each every so many hours since its last run), "
        "one after another, and import what they bring; each feed records its outcome, shown "
        "in the admin. A failing feed does not stop the others; the exit status is 1 if any "
        "failed. Meant for a daily cron line before send_digests."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--all", action="store_true", help="every feed, enabled or not, due or not"
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="fetch and report what would change; write nothing, on the feeds either",
        )

    def handle(self, *args, all, dry_run, **options):
        feeds = list(Feed.objects.all()) if all else due_feeds()
        if not feeds:
            self.stdout.write("No feed is due.")
            return
        failed = 0
        for feed in feeds:
            outcome = run_feed(feed, dry_run=dry_run)
            if outcome.ok:
                self.stdout.write(outcome.line)
            else:
                failed += 1
                # One line a feed: a multi-line import error is joined.
                self.stdout.write(self.style.ERROR(" / ".join(outcome.line.splitlines())))
        if failed:
            raise CommandError(f"{failed} of {len(feeds)} feeds failed.")
