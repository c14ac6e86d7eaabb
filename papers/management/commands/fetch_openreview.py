"""manage.py fetch_openreview VENUE_ID [--dry-run]"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from papers.importing.pipeline import ImportErrors, import_records
from papers.importing.report import ProgressBar
from papers.management.commands.import_papers import _login_name
from papers.sources.client import FetchError
from papers.sources.openreview_api import fetch_venue


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
        # The bars redraw one line in place: no newline after each write, nor error colours.
        ending, style = self.stderr.ending, self.stderr.style_func
        self.stderr.ending, self.stderr.style_func = "", None
        fetching = ProgressBar(self.stderr, desc="Fetching", unit=" notes")
        importing = ProgressBar(self.stderr, desc="Importing", unit=" notes")
        try:
            # Fetched whole before the import's transaction opens: the database is not held
            # while OpenReview is slow or asks us to wait.
            fetch = fetch_venue(venue_id, progress=lambda done, count: fetching(done, 0))
            fetching.close()
            report = import_records(
                fetch.records,
                source=fetch.source,
                dry_run=dry_run,
                progress=importing,
                total=fetch.notes,
                invoked_by=f"manage.py fetch_openreview {fetch.venue_id} ({_login_name()})",
            )
        except FetchError as error:  # one line, naming the URL
            raise CommandError(f"{error} (nothing was imported)") from None
        except ImportErrors as errors:
            raise CommandError(f"{errors}\nNothing was imported.") from None
        finally:
            fetching.close()
            importing.close()
            self.stderr.ending, self.stderr.style_func = ending, style
        self.stdout.write(
            f"OpenReview {fetch.venue_id} (API {fetch.api}): {fetch.notes} notes, "
            f"{fetch.papers} papers"
        )
        for line in report.lines():
            self.stdout.write(line)
