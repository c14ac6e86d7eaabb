"""Send each member the digest e-mail: new papers in their alerted saved searches, and
recommendations not mailed before. Run it from cron or a systemd timer (daily, say).

Safe to run on several servers at once: each member's digest is claimed in the database before
it is built (alerts.digest.claim), so a member another run holds is skipped, not mailed twice.
A member whose e-mail fails is logged and left for the next run; the others are still mailed,
and the command ends with an error naming how many failed, so cron reports it.
"""

from __future__ import annotations

import logging

from django.core.management.base import CommandError
from django.template.defaultfilters import pluralize
from django.utils import timezone

from alerts.digest import Digest, build_digest, claim, mark_done, recipients
from alerts.models import DigestState
from operations.commands import ScheduledCommand

logger = logging.getLogger(__name__)


class Command(ScheduledCommand):
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
        sent = failed = 0
        for member in members:
            name = member.get_username()
            # Taken before reading: a paper imported while this runs is in the next digest too.
            now = timezone.now()
            if dry_run:
                state, _ = DigestState.objects.get_or_create(user=member)
                self.stdout.write(
                    f"{_summary(name, build_digest(member, state))} (dry run: not sent)"
                )
                continue
            held = claim(member, now)
            if held is None:
                self.stdout.write(f"{name}: skipped, another run is sending it")
                continue
            try:
                digest = build_digest(member, held.row)
                if not digest.empty:
                    digest.message().send()
            except Exception:
                # One member's failure (a refused address, an SMTP timeout) must not stop the
                # others' digests; theirs is tried again by the next run.
                held.release()
                logger.exception("digest for %s failed", name)
                self.stderr.write(f"{name}: failed, left for the next run (see the log)")
                failed += 1
                continue
            sent += not digest.empty
            if mark_done(digest, held, now, sent=not digest.empty):
                self.stdout.write(_summary(name, digest))
            else:
                self.stderr.write(
                    f"{_summary(name, digest)}; not recorded: this run outlived its claim on "
                    "the member and another run took it over"
                )
        self.stdout.write(f"{sent} digest{pluralize(sent)} sent.")
        if failed:
            raise CommandError(f"{failed} digest{pluralize(failed)} could not be sent.")


def _summary(name: str, digest: Digest) -> str:
    if digest.empty:
        return f"{name}: nothing new"
    papers = sum(news.total for news in digest.searches)
    searches, recommended = len(digest.searches), len(digest.recommendations)
    return (
        f"{name}: {papers} new paper{pluralize(papers)} in {searches} "
        f"search{pluralize(searches, 'es')}, {recommended} recommendation{pluralize(recommended)}"
    )
