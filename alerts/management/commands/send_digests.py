"""Send each member the digest e-mail: new papers in their alerted saved searches, and
recommendations not mailed before. Run it from cron or a systemd timer (daily, say)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.template.defaultfilters import pluralize
from django.utils import timezone

from alerts.digest import build_digest, mark_done, recipients


class Command(BaseCommand):
    help = "E-mail each member the papers new in their saved searches, and recommendations."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Say who would get what; send and record nothing.",
        )
        parser.add_argument("--user", metavar="NAME", help="Only this member (username).")

    def handle(self, *args, dry_run: bool = False, user: str | None = None, **options) -> None:
        members = list(recipients(user))
        if user is not None and not members:
            raise CommandError(
                f"No member {user!r} to send a digest to (unknown, inactive, without an e-mail "
                "address or alerted saved search, or unsubscribed)."
            )
        sent = 0
        for member in members:
            # Taken before reading: a paper imported while this runs is in the next digest too.
            now = timezone.now()
            digest = build_digest(member)
            if digest.empty:
                self.stdout.write(f"{member.get_username()}: nothing new")
                if not dry_run:
                    mark_done(digest, now, sent=False)
                continue
            papers = sum(news.total for news in digest.searches)
            searches, recommended = len(digest.searches), len(digest.recommendations)
            summary = (
                f"{member.get_username()}: {papers} new paper{pluralize(papers)} in {searches} "
                f"search{pluralize(searches, 'es')}, {recommended} "
                f"recommendation{pluralize(recommended)}"
            )
            if dry_run:
                self.stdout.write(f"{summary} (dry run: not sent)")
                continue
            digest.message().send()
            mark_done(digest, now, sent=True)
            sent += 1
            self.stdout.write(summary)
        self.stdout.write(f"{sent} digest{pluralize(sent)} sent.")
