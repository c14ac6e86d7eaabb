"""The base of the commands that cron or a timer runs on every server (docs/operations.md)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, OutputWrapper

from operations.runs import AlreadyRunning, scheduled_run


class ScheduledCommand(BaseCommand):
    """A command that runs once at a time across servers and records its outcome under its
    own name (operations.runs). A `--dry-run` changes nothing, so it is neither held nor
    recorded."""

    @property
    def job_name(self) -> str:
        return type(self).__module__.rsplit(".", 1)[-1]

    def execute(self, *args, **options):
        if options.get("dry_run"):
            return super().execute(*args, **options)
        try:
            with scheduled_run(self.job_name):
                return super().execute(*args, **options)
        except AlreadyRunning:
            if options.get("stdout"):  # as BaseCommand.execute would have set it
                self.stdout = OutputWrapper(options["stdout"])
            self.stdout.write(f"{self.job_name} is already running (another server): skipped.")
            return None
