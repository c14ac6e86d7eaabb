"""manage.py sync_zotero [--group ID ...]"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import CommandError

from operations.commands import ScheduledCommand
from zotero import runs


class Command(ScheduledCommand):
    help = (
        "Pull what changed in each connected Zotero group library since its last pull: items "
        "into the catalogue through the importer, tags as lab tags, collections as lists, "
        "notes, deletions (docs/zotero.md). One line per library. Each library is claimed: "
        "two runs at once pull it once."
    )

    def claim_for(self) -> timedelta:
        # Each library is claimed too: a run killed half-way keeps the next out no longer
        # than it keeps its library (ZOTERO_SYNC_LEASE).
        return runs.lease()

    def add_arguments(self, parser):
        parser.add_argument(
            "--group", type=int, action="append", dest="groups", help="only this group id"
        )

    def handle(self, *args, groups, **options):
        lines, failed = runs.sync_libraries(groups)
        for line in lines:
            self.stdout.write(line)
        if failed:
            raise CommandError(f"{failed} library pull(s) failed; see above")
