"""Issue 38, point 3: an arXiv query with one malformed page keeps the pages before it. They
are imported, the bad page is named (its URL and start), and the next run goes on from there:
the command says which --start to pass (and exits non-zero), a feed keeps the position and
starts its next run there. Before, the whole fetch was discarded, and a newest-first query
that had lost its later pages would never go back for them."""

from __future__ import annotations

import io
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx
from django.core.management import CommandError, call_command

from papers.models import Feed, Paper
from papers.sources import feeds
from papers.sources.arxiv_api import DEFAULT_PAGE_SIZE
from papers.sources.runs import RunFailed, fetch_arxiv_into_catalogue
from tests.arxiv_feed import feed, numbered

pytestmark = pytest.mark.django_db

API = "https://arxiv.test/api/query"
QUERY = "cat:cs.LG"
PAGE = 2
MALFORMED = "<?xml version='1.0'?><feed xmlns='http://www.w3.org/2005/Atom'><entry>"


@pytest.fixture(autouse=True)
def arxiv_settings(settings):
    settings.ARXIV_API_URL = API
    settings.ARXIV_API_DELAY = 0


def serve(entries: list[str], *, malformed_at: set[int]) -> respx.Route:
    """arXiv's pages of `entries`; the page starting at each of `malformed_at` cut off."""

    def answer(request: httpx.Request) -> httpx.Response:
        params = {k: v[0] for k, v in parse_qs(urlsplit(str(request.url)).query).items()}
        start, size = int(params["start"]), int(params["max_results"])
        text = feed(entries[start : start + size], total=len(entries), start=start)
        if start in malformed_at:
            text = MALFORMED
        return httpx.Response(200, text=text, headers={"Content-Type": "application/atom+xml"})

    return respx.get(API).mock(side_effect=answer)


def starts(route: respx.Route) -> list[str]:
    return [call.request.url.params["start"] for call in route.calls]


def arxiv_ids() -> list[str]:
    return sorted(Paper.objects.values_list("arxiv_id", flat=True))


ENTRIES = numbered(3 * PAGE)  # three pages of two, newest first: 2403.00000 to 2403.00005
FIRST_PAGE = ["2403.00000", "2403.00001"]
ALL = [f"2403.{n:05d}" for n in range(3 * PAGE)]


@respx.mock
def test_a_malformed_second_page_keeps_and_imports_the_first_and_names_itself():
    route = serve(ENTRIES, malformed_at={PAGE})

    run = fetch_arxiv_into_catalogue(QUERY, page_size=PAGE)

    assert arxiv_ids() == FIRST_PAGE
    assert run.report.total.created == PAGE
    assert starts(route) == ["0", "2"]  # nothing asked past the bad page
    assert run.broken is not None and run.broken.start == PAGE
    assert run.broken.url.startswith(f"{API}?search_query=cat%3Acs.LG&start=2&max_results=2")
    assert "start=2" in str(run.broken) and "pages before it were imported" in str(run.broken)
    assert "broken off at start=2" in run.summary


@respx.mock
def test_the_next_run_from_that_start_brings_the_rest():
    route = serve(ENTRIES, malformed_at={PAGE})
    run = fetch_arxiv_into_catalogue(QUERY, page_size=PAGE)
    route.side_effect = serve(ENTRIES, malformed_at=set()).side_effect  # arXiv answers well now

    again = fetch_arxiv_into_catalogue(QUERY, page_size=PAGE, start=run.broken.start)

    assert again.broken is None
    assert arxiv_ids() == ALL
    assert starts(route)[2:] == ["2", "4"]


@respx.mock
def test_a_malformed_first_page_still_fails_the_run_and_writes_nothing():
    serve(ENTRIES, malformed_at={0})
    with pytest.raises(RunFailed, match="start=0"):
        fetch_arxiv_into_catalogue(QUERY, page_size=PAGE)
    assert not Paper.objects.exists()


@respx.mock
def test_a_page_arxiv_does_not_answer_after_others_keeps_them_too(monkeypatch):
    monkeypatch.setattr("papers.sources.client.BACKOFF", 0.0)  # its retries, without waiting
    entries = ENTRIES

    def answer(request: httpx.Request) -> httpx.Response:
        start = int(request.url.params["start"])
        if start == PAGE:
            return httpx.Response(503)
        text = feed(entries[start : start + PAGE], total=len(entries), start=start)
        return httpx.Response(200, text=text)

    respx.get(API).mock(side_effect=answer)
    run = fetch_arxiv_into_catalogue(QUERY, page_size=PAGE)
    assert arxiv_ids() == FIRST_PAGE
    assert run.broken is not None and run.broken.start == PAGE and "503" in run.broken.error


@respx.mock
def test_the_command_imports_what_it_fetched_names_the_page_and_says_where_to_go_on():
    route = serve(ENTRIES, malformed_at={PAGE})
    out = io.StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("fetch_arxiv", QUERY, "--page-size", str(PAGE), stdout=out)
    message = str(failed.value)
    assert "start=2" in message and f"{API}?search_query=" in message
    assert f"--start {PAGE}" in message
    assert "2 created" in out.getvalue()  # the report of what was imported, printed first
    assert arxiv_ids() == FIRST_PAGE

    route.side_effect = serve(ENTRIES, malformed_at=set()).side_effect
    call_command("fetch_arxiv", QUERY, "--page-size", str(PAGE), "--start", str(PAGE))
    assert arxiv_ids() == ALL


@respx.mock
def test_a_feed_keeps_where_it_broke_off_and_its_next_run_starts_there():
    # A feed asks for pages of the fetcher's default size.
    route = serve(numbered(3 * DEFAULT_PAGE_SIZE), malformed_at={DEFAULT_PAGE_SIZE})
    arxiv_feed = Feed.objects.create(kind=Feed.Kind.ARXIV, target=QUERY)

    outcome = feeds.run_feed(arxiv_feed)

    arxiv_feed.refresh_from_db()
    assert not outcome.ok
    assert arxiv_feed.last_status == Feed.Status.FAILED
    assert arxiv_feed.arxiv_resume_start == DEFAULT_PAGE_SIZE
    assert f"start={DEFAULT_PAGE_SIZE}" in arxiv_feed.last_error
    assert arxiv_feed.last_created == DEFAULT_PAGE_SIZE and arxiv_feed.last_import_id
    assert Paper.objects.count() == DEFAULT_PAGE_SIZE

    route.side_effect = serve(numbered(3 * DEFAULT_PAGE_SIZE), malformed_at=set()).side_effect
    arxiv_feed.last_run_at = None  # due again
    outcome = feeds.run_feed(arxiv_feed)

    arxiv_feed.refresh_from_db()
    assert outcome.ok and arxiv_feed.last_status == Feed.Status.OK
    assert arxiv_feed.arxiv_resume_start is None  # its next run from the newest again
    assert starts(route)[2:] == [str(DEFAULT_PAGE_SIZE), str(2 * DEFAULT_PAGE_SIZE)]
    assert Paper.objects.count() == 3 * DEFAULT_PAGE_SIZE
