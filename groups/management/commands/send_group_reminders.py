"""E-mail the members of each reading group before its sessions. Run it from cron or a timer
every hour or so (docs/groups.md): a session is announced once, to each member, by the first
run within GROUP_REMINDER_HOURS of its start.

Safe on several servers at once: the command runs once at a time (operations.commands), and
each member's reminder is claimed before it is mailed (groups.reminders), so even a manual run
beside the scheduled one mails nobody twice."""

from __future__ import annotations

from django.core.management.base import CommandError

from groups.reminders import send_reminders
from operations.commands import ScheduledCommand


class Command(ScheduledCommand):
    help = "E-mail reading group members before their sessions."

    def handle(self, *args, **options) -> None:
        outcome = send_reminders()
        self.stdout.write(
            f"{outcome.sent} reminder(s) sent, {outcome.skipped} held by another run."
        )
        if outcome.failed:
            raise CommandError(f"{outcome.failed} reminder(s) could not be sent.")
