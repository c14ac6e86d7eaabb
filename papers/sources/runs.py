"""A fetch from a service, then its import: the one implementation the fetch commands, the
feeds (papers.sources.feeds) and their background task share.

Each run fetches everything first and only then opens the import's transaction, so the
database is not held while a service is slow or asks us to wait; a failure at either step is
one RunFailed whose message names what went wrong, and nothing was written. One exception: an
arXiv query whose later page fails (malformed, or no answer) imports the pages before it and
names the page in its Run's `broken`, so that the next run goes on from there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlencode

from papers.importing.pipeline import ImportErrors, import_records
from papers.importing.records import ImportFailed, PaperRecord
from papers.importing.report import Report
from papers.models import Paper
from papers.sources.arxiv_api import DEFAULT_PAGE_SIZE, SORTS, SOURCE, fetch_pages
from papers.sources.client import FetchClient, FetchError, service
from papers.sources.openreview_api import fetch_venue

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Called with (done, total); total 0 when not known yet.
Progress = Callable[[int, int], None]


class RunFailed(Exception):
    """A fetch or an import that failed; nothing was written. The message is for a person."""


class BrokenPage(NamedTuple):
    """The page of an arXiv query that could not be had (malformed, or arXiv did not answer):
    the pages before it were imported, and the query goes on from `start` next time."""

    url: str
    start: int
    error: str

    def __str__(self) -> str:
        return (
            f"the page at start={self.start} could not be read ({self.url}): {self.error}; "
            "the pages before it were imported"
        )


class Run(NamedTuple):
    summary: str  # one line on what was fetched, e.g. "arXiv 'abs:x': 12 papers (end of results)"
    report: Report
    # An arXiv query's page that broke the fetch off after some pages: the run is incomplete.
    broken: BrokenPage | None = None


def fetch_venue_into_catalogue(
    venue_id: str,
    *,
    dry_run: bool = False,
    fetch_progress: Progress | None = None,
    import_progress: Progress | None = None,
    user: User | None = None,
    invoked_by: str = "",
) -> Run:
    """Fetch an OpenReview venue (papers.sources.openreview_api) and import it as the source
    openreview:VENUE_ID. RunFailed when either step fails."""
    with _one_line_failures():
        fetch = fetch_venue(
            venue_id,
            progress=(lambda done, count: fetch_progress(done, 0)) if fetch_progress else None,
        )
        report = import_records(
            fetch.records,
            source=fetch.source,
            dry_run=dry_run,
            progress=import_progress,
            total=fetch.notes,
            invoked_by=invoked_by,
            user=user,
            warnings=fetch.warnings,
        )
    notes = f"{fetch.notes} notes, {fetch.papers} papers"
    return Run(f"OpenReview {fetch.venue_id} (API {fetch.api}): {notes}", report)


def fetch_arxiv_into_catalogue(
    query: str,
    *,
    start: int = 0,
    since: date | None = None,
    max_results: int | None = None,
    sort: str = SORTS[0],
    page_size: int = DEFAULT_PAGE_SIZE,
    dry_run: bool = False,
    fetch_progress: Progress | None = None,
    import_progress: Progress | None = None,
    user: User | None = None,
    invoked_by: str = "",
) -> Run:
    """Fetch an arXiv query newest first from result `start` (papers.sources.arxiv_api,
    stopping at what the catalogue has) and import it as the source arxiv-api. RunFailed when
    either step fails. A page that fails after others were fetched does not lose them: they
    are imported, and the run's `broken` names that page and where to start next time."""
    with _one_line_failures():
        records, stop, warnings, broken = _fetch_arxiv(
            query,
            start,
            since,
            max_results,
            sort,
            page_size,
            fetch_progress or (lambda d, t: None),
        )
        report = import_records(
            records,
            source=SOURCE,
            dry_run=dry_run,
            progress=import_progress,
            total=len(records),
            invoked_by=invoked_by,
            user=user,
            warnings=warnings,
        )
    return Run(f"arXiv {query!r}: {len(records)} papers ({stop})", report, broken)


@contextmanager
def _one_line_failures() -> Iterator[None]:
    """What a fetch or an import raises for bad input or a failing service, as RunFailed;
    anything else (a bug) goes through unchanged."""
    try:
        yield
    except (FetchError, ImportFailed, ValueError) as error:  # one line, naming the URL
        raise RunFailed(f"{error} (nothing was imported)") from None
    except ImportErrors as errors:
        raise RunFailed(f"{errors}\nNothing was imported.") from None


def _fetch_arxiv(
    query: str,
    start: int,
    since: date | None,
    max_results: int | None,
    sort: str,
    page_size: int,
    progress: Progress,
) -> tuple[list[PaperRecord], str, list[str], BrokenPage | None]:
    """The query's records, why paging stopped, the entries left out, and the page that broke
    the fetch off after others (its failure is raised when it is the first page)."""
    arxiv = service("arxiv")
    records: dict[str, PaperRecord] = {}
    warnings: list[str] = []
    stop = ""
    asked: list[dict[str, str]] = []  # the parameters of each page asked for
    pages_read = 0
    broken = None
    with FetchClient(arxiv) as client:
        # The base URL is the query endpoint itself, asked with an absolute URL: a base
        # URL's path would gain a trailing slash, which is another address.
        def fetch_page(params: dict[str, str]) -> str:
            asked.append(params)
            return client.get(arxiv.base_url, params).text

        pages = fetch_pages(
            query,
            fetch_page,
            start=start,
            page_size=page_size,
            max_results=max_results,
            since=since,
            known=Paper.objects.known_arxiv_ids,
            sort=sort,
        )
        try:
            for page in pages:
                for record in page.records:
                    # A paper submitted while paging pushes older ones onto the next page:
                    # the first (newest) copy is kept.
                    records.setdefault(record.arxiv_id, record)
                warnings.extend(page.warnings)
                progress(len(records), page.total or 0)
                stop = str(page.stop or "")
                pages_read += 1
        except (FetchError, ImportFailed) as error:
            if not pages_read:
                raise
            # The pages before it stay good: a newest-first query that lost them would, next
            # time, stop at the first of them it had, and never see the rest.
            params = asked[-1]
            url = f"{arxiv.base_url}?{urlencode(params)}"
            broken = BrokenPage(url, int(params["start"]), str(error))
            stop = f"broken off at start={broken.start}"
    return list(records.values()), stop, warnings, broken
