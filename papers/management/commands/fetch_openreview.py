"""manage.py fetch_openreview VENUE_ID [--dry-run]"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from papers.importing.report import fetch_progress_bars
from papers.management.commands.import_papers import _login_name
from papers.sources.runs import RunFailed, fetch_venue_into_catalogue


class Command(BaseCommand):
    help = (
        "Fetch a venue's papers, reviews and decisions from OpenReview (API v2, else v1) and "
        "import them as the source openreview:VENUE_ID. Nothing is written until every note "
        "is fetched and valid; a second run over unchanged notes changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "venue_id",
            metavar="VENUE_ID",
            help="the venue's OpenReview id, e.g. ICLR.cc/2025/Conference",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="report what would change, write nothing"
        )

    def handle(self, *args, venue_id, dry_run, **options):
        try:
            with fetch_progress_bars(self.stderr, unit=" notes") as (fetching, importing):
                run = fetch_venue_into_catalogue(
                    venue_id,
                    dry_run=dry_run,
                    fetch_progress=fetching,
                    import_progress=importing,
                    invoked_by=f"manage.py fetch_openreview {venue_id.strip().strip('/')} "
                    f"({_login_name()})",
                )
        except RunFailed as error:
            raise CommandError(str(error)) from None
        self.stdout.write(run.summary)
        for line in run.report.lines():
            self.stdout.write(line)
