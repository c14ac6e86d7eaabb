"""Delete prepared exports older than EXPORT_FILE_DAYS days, with their files, and the files
in the exports folder whose export is gone. Run it daily from cron or a systemd timer
(docs/operations.md lists it with the other scheduled commands)."""

from __future__ import annotations

from annotations.export_jobs import prune_exports
from operations.commands import ScheduledCommand


class Command(ScheduledCommand):
    help = (
        "Delete prepared exports older than EXPORT_FILE_DAYS days, with their files, and the "
        "files in the exports folder whose export is gone."
    )

    def handle(self, *args, **options) -> None:
        deleted, swept = prune_exports()
        self.stdout.write(
            f"{deleted} prepared export{'s' if deleted != 1 else ''} deleted, "
            f"{swept} file{'s' if swept != 1 else ''} without an export swept"
        )
