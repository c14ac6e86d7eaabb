"""An arXiv API query, fetched page by page into validated PaperRecords, newest first.

Pure at its edge (docs/DESIGN "Papers from outside"): `fetch_page(params)` returns the Atom text
of one call of `export.arxiv.org/api/query` with those query parameters, and everything HTTP
(base URL, User-Agent, the 3-second delay arXiv asks for between calls, retries) is that
callable's business; this module calls it once per page, one call at a time, and parses each
page with the file reader (papers.importing.arxiv.read_page).

What the arXiv API User's Manual sets (section 3.1): `search_query` ("cat:cs.LG AND
abs:diffusion"), `start` (0-based) and `max_results`, at most 2,000 a call and 30,000 results a
query; `sortBy` submittedDate or lastUpdatedDate with `sortOrder=descending` gives newest first.
Each response carries `opensearch:totalResults`, the query's matches over all pages.

Paging stops at the first of:
- the end: a page reaches the total, or comes back empty (the first page empty is an error,
  "no papers match ...", as a file without records is);
- `since`: an entry older than that date (first version's submission, or this version's date
  when sorting by lastUpdatedDate); it and everything after it are left out;
- `max_results`, or arXiv's 30,000;
- `known`: every paper on a page is already in the catalogue unchanged (papers.querysets.
  PaperQuerySet.known_arxiv_ids). That page's records are still given (the loader passes over
  unchanged ones cheaply), only the pages after it are not fetched. To see new versions of
  older papers, sort by lastUpdatedDate: a replaced version moves to the top.

Records carry `source` (one name for every fetch, so the three-way merge treats arXiv as one
source whatever the query); an error names the page's query string instead, e.g.
"arxiv-api?search_query=...&start=200...:12: incorrect id format for 1234.12345". One entry
that cannot be read or is not a valid record (an id that is no arXiv URL, a date that is no
date, a title too long) is left out with a warning in its page's `warnings`, located the same
way: the rest of the page is kept. arXiv's error entry, or a page that is no Atom feed, still
fails the fetch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Set
from dataclasses import dataclass, replace
from datetime import date
from enum import StrEnum
from urllib.parse import urlencode

from papers.importing import arxiv
from papers.importing.records import ImportFailed, PaperRecord, validate_record
from papers.text import abstract_fingerprint

API_PAGE_LIMIT = 2_000  # max_results of one call
API_RESULT_LIMIT = 30_000  # start + max_results of any call
DEFAULT_PAGE_SIZE = 100
SORTS = ("submittedDate", "lastUpdatedDate")
SOURCE = "arxiv-api"

# The Atom text of one API call with these query parameters.
FetchPage = Callable[[dict[str, str]], str]
# Given {arXiv id: abstract fingerprint} of a page's papers, the ids the catalogue has unchanged.
Known = Callable[[Mapping[str, str]], Set[str]]


class Stop(StrEnum):
    """Why a page is the last one fetched."""

    END = "end of results"
    # Empty before the total it announced: arXiv does this now and then; a later run resumes.
    EMPTY = "arXiv sent an empty page before its total"
    SINCE = "older than --since"
    MAX = "--max reached"
    API_LIMIT = "arXiv gives at most 30,000 results a query"
    KNOWN = "a whole page already in the catalogue"


@dataclass(frozen=True)
class FetchedPage:
    params: dict[str, str]
    records: list[PaperRecord]  # validated, in arXiv's order
    total: int | None  # opensearch:totalResults
    stop: Stop | None  # why no page follows; None when one does
    # The entries left out, each naming its place on the page and why.
    warnings: tuple[str, ...] = ()


def query_url_params(
    query: str, start: int, max_results: int, sort: str = "submittedDate"
) -> dict[str, str]:
    """Query parameters of one page of `query`, newest first."""
    return {
        "search_query": query,
        "start": str(start),
        "max_results": str(max_results),
        "sortBy": sort,
        "sortOrder": "descending",
    }


def fetch_pages(
    query: str,
    fetch_page: FetchPage,
    *,
    start: int = 0,
    page_size: int = DEFAULT_PAGE_SIZE,
    max_results: int | None = None,
    since: date | None = None,
    known: Known | None = None,
    sort: str = "submittedDate",
    source: str = SOURCE,
) -> Iterator[FetchedPage]:
    """Pages of `query` from result `start` (0: the newest; more: where an earlier run broke
    off) until one of the stops in the module's docstring; raises ImportFailed for arXiv's
    error entry, a malformed page, an invalid record or a query matching nothing. The pages
    already given are the caller's to keep when a later one fails."""
    _check_arguments(query, start, page_size, max_results, sort)
    limit = min(start + max_results if max_results else API_RESULT_LIMIT, API_RESULT_LIMIT)
    by_max = max_results is not None and start + max_results <= API_RESULT_LIMIT
    first = start
    while True:
        size = min(page_size, limit - start)
        params = query_url_params(query, start, size, sort)
        page, skipped = _read(fetch_page(params), params, source)
        entries = page.entries[:size]  # never past --max, whatever a response holds
        # Entries on the page, those left out too: how far the results are read.
        read = min(len(page.entries) + len(skipped), size)
        if not read and start == first == 0:
            raise ImportFailed(source, None, _nothing_matches(query, page.total_results))
        kept = _newer(entries, since, sort)
        start += read  # entries consumed, all given: a cut by `since` is the last page
        stop = _stop(start, limit, by_max, page.total_results, read, len(kept) < len(entries))
        records = [entry.record for entry in kept]
        # A page whose every entry was left out says nothing of what the catalogue has.
        if stop is None and known is not None and records and _all_known(records, known):
            stop = Stop.KNOWN
        warnings = tuple(f"{error}; the entry was left out" for error in skipped)
        yield FetchedPage(params, records, page.total_results, stop, warnings)
        if stop is not None:
            return


def fetch_records(query: str, fetch_page: FetchPage, **options) -> Iterator[PaperRecord]:
    """The records of fetch_pages(query, fetch_page, **options), one after another."""
    for page in fetch_pages(query, fetch_page, **options):
        yield from page.records


def id_params(arxiv_id: str) -> dict[str, str]:
    """Query parameters of the call that asks for one paper by its id (any version)."""
    return {"id_list": arxiv_id, "max_results": "1"}


def read_one(text: str, arxiv_id: str, *, source: str = SOURCE) -> PaperRecord | None:
    """The record of `arxiv_id` in the answer to id_params(arxiv_id); None when arXiv has no
    such paper: it answers an empty feed, its error entry, or (for a well-formed id it never
    issued) an entry without a title. ImportFailed for an answer that is not a feed."""
    if arxiv.is_error_answer(text):
        return None
    params = id_params(arxiv_id)
    for entry in _read_entries(text, params, source):
        if entry.record.arxiv_id == arxiv_id and entry.record.title:
            return entry.record  # validated by the loader, as every record is
    return None


def _check_arguments(
    query: str, start: int, page_size: int, max_results: int | None, sort: str
) -> None:
    if not query.strip():
        raise ValueError("the query is empty")
    if not 0 <= start < API_RESULT_LIMIT:
        raise ValueError(f"start {start}: arXiv gives results 0 to {API_RESULT_LIMIT - 1}")
    if not 1 <= page_size <= API_PAGE_LIMIT:
        raise ValueError(f"page size {page_size}: arXiv gives 1 to {API_PAGE_LIMIT} a call")
    if max_results is not None and max_results < 1:
        raise ValueError(f"--max {max_results}: at least 1")
    if sort not in SORTS:
        raise ValueError(f"sort {sort!r}: one of {', '.join(SORTS)}")


def _read(
    text: str, params: dict[str, str], source: str
) -> tuple[arxiv.FeedPage, list[ImportFailed]]:
    """The page with its valid entries, and the entries left out (located by the page)."""
    skipped: list[ImportFailed] = []
    try:
        page = arxiv.read_page(text, source, skip=skipped.append)
    except ImportFailed as error:
        raise _located(error, params, source) from None
    valid = []
    for entry in page.entries:
        try:
            # As the pipeline validates a file's records; the known check's fingerprints must
            # be of the abstract as stored (LaTeX accents made Unicode).
            validate_record(entry.record)
            valid.append(entry)
        except ImportFailed as error:
            message = f"entry {entry.record.arxiv_id}: {error.message}"
            skipped.append(ImportFailed(error.file, error.line, message))
    located = [_located(error, params, source) for error in skipped]
    return replace(page, entries=valid), located


def _read_entries(text: str, params: dict[str, str], source: str) -> list[arxiv.ArxivEntry]:
    try:
        return arxiv.read_page(text, source).entries
    except ImportFailed as error:
        raise _located(error, params, source) from None


def _located(error: ImportFailed, params: dict[str, str], source: str) -> ImportFailed:
    """The error named by the call's query string instead of the source."""
    return ImportFailed(f"{source}?{urlencode(params)}", error.line, error.message)


def _nothing_matches(query: str, total: int | None) -> str:
    if total:  # arXiv's occasional empty page, on the very first call
        return f"arXiv sent no papers for {query!r} though it counts {total}; try again later"
    return f"no papers match {query!r}"


def _newer(
    entries: list[arxiv.ArxivEntry], since: date | None, sort: str
) -> list[arxiv.ArxivEntry]:
    """The entries before the first one older than `since` (newest first, all after it are
    older too). An entry without a date is kept: there is nothing to cut it by."""
    if since is None:
        return entries
    for index, entry in enumerate(entries):
        when = (entry.updated if sort == "lastUpdatedDate" else None) or entry.published
        if when is not None and when < since:
            return entries[:index]
    return entries


def _stop(
    start: int,
    limit: int,
    by_max: bool,
    total: int | None,
    read: int,
    cut_by_since: bool,
) -> Stop | None:
    """Why the page that brought `start` up to where it is is the last, if it is: `read`
    entries were on it, `since` cut some of them off, and `limit` is --max's (`by_max`) or
    arXiv's."""
    if cut_by_since:
        return Stop.SINCE
    if not read:
        return Stop.EMPTY if total is not None and start < total else Stop.END
    if total is not None and start >= total:
        return Stop.END
    if start >= limit:
        return Stop.MAX if by_max else Stop.API_LIMIT
    return None


def _all_known(records: list[PaperRecord], known: Known) -> bool:
    fingerprints = {record.arxiv_id: abstract_fingerprint(record.abstract) for record in records}
    return fingerprints.keys() <= known(fingerprints)
