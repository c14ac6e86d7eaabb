"""manage.py fetch_arxiv QUERY [--since DATE] [--max N] [--sort submittedDate|lastUpdatedDate]
[--start N]

A page that cannot be read after others were fetched: those are imported, the page is named,
and the command exits non-zero telling the --start that goes on from there."""

from __future__ import annotations

import shlex
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from papers.importing.report import fetch_progress_bars
from papers.management.commands.import_papers import _login_name
from papers.sources.arxiv_api import DEFAULT_PAGE_SIZE, SORTS, SOURCE
from papers.sources.runs import RunFailed, fetch_arxiv_into_catalogue


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--since: expected a date YYYY-MM-DD, got {value!r}") from None


class Command(BaseCommand):
    help = (
        "Fetch the papers of an arXiv API query (e.g. 'cat:cs.LG AND abs:diffusion'), newest "
        "first, stopping at what the catalogue already has, and import them as the source "
        f"{SOURCE}. Nothing is written until the pages are fetched; a page that cannot be "
        "read after others is named, the others imported, and --start says where to go on."
    )

    def add_arguments(self, parser):
        parser.add_argument("query", metavar="QUERY", help="arXiv's search_query syntax")
        parser.add_argument("--since", type=_date, help="only papers from this date (YYYY-MM-DD)")
        parser.add_argument("--max", type=int, dest="max_results", help="at most this many")
        parser.add_argument(
            "--sort",
            choices=SORTS,
            default=SORTS[0],
            help="newest by first submission (default) or by last update (to see new versions)",
        )
        parser.add_argument("--page-size", type=int, default=DEFAULT_PAGE_SIZE)
        parser.add_argument(
            "--start",
            type=int,
            default=0,
            help="the result to start at (0, the newest): where a broken-off run says to go on",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="report what would change, write nothing"
        )

    def handle(self, *args, query, since, max_results, sort, page_size, start, dry_run, **options):
        try:
            with fetch_progress_bars(self.stderr, unit=" papers") as (fetching, importing):
                run = fetch_arxiv_into_catalogue(
                    query,
                    start=start,
                    since=since,
                    max_results=max_results,
                    sort=sort,
                    page_size=page_size,
                    dry_run=dry_run,
                    fetch_progress=fetching,
                    import_progress=importing,
                    invoked_by=f"manage.py fetch_arxiv {query!r} ({_login_name()})",
                )
        except RunFailed as error:
            raise CommandError(str(error)) from None
        self.stdout.write(run.summary)
        for line in run.report.lines():
            self.stdout.write(line)
        if run.broken:
            again = f"manage.py fetch_arxiv {shlex.quote(query)} --start {run.broken.start}"
            raise CommandError(f"Incomplete: {run.broken}. To go on from there: {again}")
