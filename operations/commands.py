"""The base of the commands that cron or a timer runs on every server (docs/operations.md)."""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand, OutputWrapper

from operations.runs import CLAIM_FOR, AlreadyRunning, scheduled_run


class ScheduledCommand(BaseCommand):
    """A command that runs once at a time across servers and records its outcome under its
    own name (operations.runs). A `--dry-run` changes nothing, so it is neither held nor
    recorded."""

    @property
    def job_name(self) -> str:
        return type(self).__module__.rsplit(".", 1)[-1]

    def claim_for(self) -> timedelta:
        """How long a run holds the job: a run killed mid-way keeps the next out this long.
        A command whose work claims its own rows (and so runs safely beside another run)
        may say less."""
        return CLAIM_FOR

    def execute(self, *args, **options):
        if options.get("dry_run"):
            return super().execute(*args, **options)
        try:
            with scheduled_run(self.job_name, self.claim_for()):
                return super().execute(*args, **options)
        except AlreadyRunning:
            if options.get("stdout"):  # as BaseCommand.execute would have set it
                self.stdout = OutputWrapper(options["stdout"])
            self.stdout.write(f"{self.job_name} is already running (another server): skipped.")
            return None
