"""manage.py fetch_pdfs [--paper ID ...] [--limit N] [--refetch] [--retry-refused] [--workers N]"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from operations.commands import ScheduledCommand
from pdfs import runs, selectors
from pdfs.management.arguments import add_paper_ids_argument


class Command(ScheduledCommand):
    help = (
        "Fetch the PDFs of papers that have a PDF link and no stored PDF, from the hosts in "
        "PDF_FETCH_HOSTS, and store them (docs/pdfs.md). Prints one line per refused PDF and "
        "a summary. A refused link is asked again a day later, then after twice as long each time. "
        "A refusal is an outcome, not a failure: the exit status stays 0. Runs once at a time "
        "across servers (--paper runs aside)."
    )

    def add_arguments(self, parser):
        add_paper_ids_argument(parser, "only this paper (repeat for several)")
        parser.add_argument("--limit", type=int, help="at most this many papers, oldest first")
        parser.add_argument(
            "--refetch",
            action="store_true",
            help="fetch papers that have a PDF too; a changed file replaces the stored one",
        )
        parser.add_argument(
            "--retry-refused",
            action="store_true",
            help="ask links refused lately now, not after their wait (named papers always are)",
        )
        parser.add_argument(
            "--workers", type=int, default=runs.WORKERS, help="downloads at once (default 2)"
        )

    def execute(self, *args, **options):
        if options.get("paper_ids"):
            # Named papers: someone at a shell, not the schedule; it runs beside a scheduled run
            # (the same paper fetched twice at once is stored once: pdfs.storing).
            return BaseCommand.execute(self, *args, **options)
        return super().execute(*args, **options)

    def handle(self, *args, paper_ids, limit, refetch, retry_refused, workers, **options):
        if limit is not None and limit < 1:
            raise CommandError("--limit: expected a number of papers, at least 1")
        if workers < 1:
            raise CommandError("--workers: expected at least 1")
        papers = selectors.papers_to_fetch(
            paper_ids=paper_ids, refetch=refetch, retry_refused=retry_refused, limit=limit
        )
        report = runs.fetch_pdfs(papers.values_list("pk", "pdf_url"), workers=workers)
        for line in report.lines():
            self.stdout.write(line)
        self.stdout.write(report.summary())
        if not (paper_ids or retry_refused):
            waiting = selectors.waiting_count()
            if waiting:
                papers_were = "paper whose link was" if waiting == 1 else "papers whose links were"
                self.stdout.write(
                    f"Not asked: {waiting} {papers_were} refused lately, until their next try "
                    "(--retry-refused asks now)."
                )
