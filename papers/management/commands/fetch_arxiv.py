"""manage.py fetch_arxiv QUERY [--since DATE] [--max N] [--sort submittedDate|lastUpdatedDate]"""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from papers.importing.pipeline import ImportErrors, import_records
from papers.importing.records import ImportFailed, PaperRecord
from papers.importing.report import ProgressBar
from papers.management.commands.import_papers import _login_name
from papers.models import Paper
from papers.sources.arxiv_api import DEFAULT_PAGE_SIZE, SORTS, SOURCE, fetch_pages
from papers.sources.client import FetchClient, FetchError, service


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--since: expected a date YYYY-MM-DD, got {value!r}") from None


class Command(BaseCommand):
    help = (
        "Fetch the papers of an arXiv API query (e.g. 'cat:cs.LG AND abs:diffusion'), newest "
        "first, stopping at what the catalogue already has, and import them as the source "
        f"{SOURCE}. Nothing is written until every page is fetched and valid."
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
            "--dry-run", action="store_true", help="report what would change, write nothing"
        )

    def handle(self, *args, query, since, max_results, sort, page_size, dry_run, **options):
        ending, style = self.stderr.ending, self.stderr.style_func
        self.stderr.ending, self.stderr.style_func = "", None
        fetching = ProgressBar(self.stderr, desc="Fetching", unit=" papers")
        importing = ProgressBar(self.stderr, desc="Importing", unit=" papers")
        try:
            # Fetched whole before the import's transaction opens: the database is not held
            # during arXiv's 3 seconds between calls.
            records, stop = self._fetch(query, since, max_results, sort, page_size, fetching)
            fetching.close()
            report = import_records(
                records,
                source=SOURCE,
                dry_run=dry_run,
                progress=importing,
                total=len(records),
                invoked_by=f"manage.py fetch_arxiv {query!r} ({_login_name()})",
            )
        except (FetchError, ImportFailed, ValueError) as error:  # one line, naming the URL
            raise CommandError(f"{error} (nothing was imported)") from None
        except ImportErrors as errors:
            raise CommandError(f"{errors}\nNothing was imported.") from None
        finally:
            fetching.close()
            importing.close()
            self.stderr.ending, self.stderr.style_func = ending, style
        self.stdout.write(f"arXiv {query!r}: {len(records)} papers ({stop})")
        for line in report.lines():
            self.stdout.write(line)

    def _fetch(self, query, since, max_results, sort, page_size, progress):
        arxiv = service("arxiv")
        records: dict[str, PaperRecord] = {}
        stop = ""
        with FetchClient(arxiv) as client:
            # The base URL is the query endpoint itself, asked with an absolute URL: a base
            # URL's path would gain a trailing slash, which is another address.
            def fetch_page(params: dict[str, str]) -> str:
                return client.get(arxiv.base_url, params).text

            pages = fetch_pages(
                query,
                fetch_page,
                page_size=page_size,
                max_results=max_results,
                since=since,
                known=Paper.objects.known_arxiv_ids,
                sort=sort,
            )
            for page in pages:
                for record in page.records:
                    # A paper submitted while paging pushes older ones onto the next page:
                    # the first (newest) copy is kept.
                    records.setdefault(record.arxiv_id, record)
                progress(len(records), page.total or 0)
                stop = str(page.stop or "")
        return list(records.values()), stop
