"""Fetching an arXiv API query: pages replayed from Atom text written as arXiv sends it (API
User's Manual 3.3), through a fake fetch_page; nothing reaches the network."""

from __future__ import annotations

from datetime import date

import pytest

from papers.importing.records import ImportFailed
from papers.models import Paper
from papers.sources import arxiv_api
from papers.sources.arxiv_api import (
    API_PAGE_LIMIT,
    FetchedPage,
    Stop,
    fetch_pages,
    fetch_records,
    query_url_params,
)
from papers.text import abstract_fingerprint
from tests.arxiv_feed import atom_entry, feed, numbered
from tests.factories import make_paper

QUERY = "cat:cs.LG AND abs:diffusion"


class FakeArxiv:
    """Answers each call with the slice of `entries` its start and max_results ask for, as
    arXiv pages a result list, and remembers the calls."""

    def __init__(self, entries: list[str], *, total: int | None = -1):
        self.entries = entries
        self.total = len(entries) if total == -1 else total
        self.calls: list[dict[str, str]] = []

    def __call__(self, params: dict[str, str]) -> str:
        self.calls.append(params)
        start, size = int(params["start"]), int(params["max_results"])
        return feed(self.entries[start : start + size], total=self.total, start=start)

    def pages_asked(self) -> list[tuple[int, int]]:
        return [(int(call["start"]), int(call["max_results"])) for call in self.calls]


def ids(pages: list[FetchedPage]) -> list[str]:
    return [record.arxiv_id for page in pages for record in page.records]


def test_one_page_asks_for_the_query_newest_first():
    assert query_url_params(QUERY, 200, 100) == {
        "search_query": "cat:cs.LG AND abs:diffusion",
        "start": "200",
        "max_results": "100",
        "sortBy": "submittedDate",
        "sortOrder": "descending",
    }
    assert query_url_params(QUERY, 0, 5, sort="lastUpdatedDate")["sortBy"] == "lastUpdatedDate"


def test_pages_follow_each_other_until_the_total_without_a_call_past_it():
    arxiv = FakeArxiv(numbered(5))
    pages = list(fetch_pages(QUERY, arxiv, page_size=2))
    assert arxiv.pages_asked() == [(0, 2), (2, 2), (4, 2)]
    assert {call["search_query"] for call in arxiv.calls} == {QUERY}
    assert ids(pages) == [f"2403.{n:05d}" for n in range(5)]
    assert [(page.total, page.stop) for page in pages] == [(5, None), (5, None), (5, Stop.END)]


def test_entries_as_arxiv_writes_them_become_exact_records():
    folded = "Score-Based Diffusion for $\\mathcal{O}(n)$-Equivariant\n      Molecule Generation"
    journal = "<arxiv:journal_ref>ICLR 2024</arxiv:journal_ref>\n"
    doi = "    <arxiv:doi>10.1103/PhysRevD.76.013009</arxiv:doi>\n"
    entries = [
        atom_entry(
            "2402.01234",
            2,
            published="2024-02-02T17:59:58Z",
            updated="2024-02-20T09:00:00Z",
            title=folded,
            summary='We study\n  diffusion on $\\mathbb{R}^3$ for Schr\\"odinger\n  bridges.',
            authors=("Jürgen Weiß", "Zoë Ó Briain", "李明"),
            extra=f"    {journal}{doi}",
        ),
        # No DOI, no journal reference, no primary category, one author: all optional.
        atom_entry("2401.00007", published="2024-01-05T08:00:00Z").replace(
            '    <arxiv:primary_category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>\n',
            "",
        ),
    ]
    [first, second] = fetch_records(QUERY, FakeArxiv(entries))
    assert (first.title, first.abstract, first.authors) == (
        "Score-Based Diffusion for $\\mathcal{O}(n)$-Equivariant Molecule Generation",
        "We study diffusion on $\\mathbb{R}^3$ for Schrödinger bridges.",
        ["Jürgen Weiß", "Zoë Ó Briain", "李明"],
    )
    assert (first.arxiv_id, first.forum_url, first.pdf_url) == (
        "2402.01234",
        "https://arxiv.org/abs/2402.01234v2",
        "https://arxiv.org/pdf/2402.01234v2",
    )
    assert (first.doi, first.tags, first.year, first.source) == (
        "10.1103/physrevd.76.013009",
        ["ICLR 2024"],
        2024,
        "arxiv-api",
    )
    assert (second.arxiv_id, second.doi, second.tags, second.primary_area, second.keywords) == (
        "2401.00007",
        "",
        [],
        "",
        ["cs.LG"],
    )


def test_max_caps_the_records_and_shrinks_the_last_call():
    arxiv = FakeArxiv(numbered(7))
    pages = list(fetch_pages(QUERY, arxiv, page_size=3, max_results=5))
    assert arxiv.pages_asked() == [(0, 3), (3, 2)]
    assert (len(ids(pages)), pages[-1].stop) == (5, Stop.MAX)


def test_since_keeps_what_was_submitted_that_day_or_later_and_stops_paging():
    arxiv = FakeArxiv(numbered(10))  # 2024-03-01, 02-29, 02-28, ...
    pages = list(fetch_pages(QUERY, arxiv, page_size=3, since=date(2024, 2, 26)))
    assert ids(pages) == [f"2403.{n:05d}" for n in range(5)]
    assert (arxiv.pages_asked(), pages[-1].stop) == ([(0, 3), (3, 3)], Stop.SINCE)


def test_since_compares_this_versions_date_when_sorting_by_last_update():
    entries = [
        atom_entry("2301.00001", 3, published="2023-01-02T00:00:00Z", updated="2024-03-01"),
        atom_entry("2302.00002", 1, published="2023-02-02T00:00:00Z", updated="2024-01-01"),
    ]
    arxiv = FakeArxiv(entries)
    records = list(fetch_records(QUERY, arxiv, since=date(2024, 2, 1), sort="lastUpdatedDate"))
    assert [record.arxiv_id for record in records] == ["2301.00001"]
    assert arxiv.calls[0]["sortBy"] == "lastUpdatedDate"


def test_paging_stops_after_a_page_the_catalogue_already_has():
    entries = numbered(6)
    catalogue = {f"2403.{n:05d}": abstract_fingerprint(f"Abstract {n}.") for n in range(2, 6)}
    asked: list[dict[str, str]] = []

    def known(fingerprints):
        asked.append(dict(fingerprints))
        return {i for i, fp in fingerprints.items() if catalogue.get(i) == fp}

    arxiv = FakeArxiv(entries)
    pages = list(fetch_pages(QUERY, arxiv, page_size=2, known=known))
    # The known page's records are still given; the page after it is never asked for.
    assert arxiv.pages_asked() == [(0, 2), (2, 2)]
    assert (ids(pages), pages[-1].stop) == ([f"2403.{n:05d}" for n in range(4)], Stop.KNOWN)
    assert asked[1] == {key: catalogue[key] for key in ("2403.00002", "2403.00003")}


def test_a_new_version_with_a_new_abstract_is_not_known_so_paging_goes_on():
    entries = numbered(6)
    entries[1] = atom_entry("2403.00001", 2, summary="Abstract 1, rewritten for v2.")
    catalogue = {f"2403.{n:05d}": abstract_fingerprint(f"Abstract {n}.") for n in range(6)}

    def known(fingerprints):
        return {i for i, fp in fingerprints.items() if catalogue.get(i) == fp}

    arxiv = FakeArxiv(entries)
    pages = list(fetch_pages(QUERY, arxiv, page_size=2, known=known))
    assert arxiv.pages_asked() == [(0, 2), (2, 2)]
    assert [page.stop for page in pages] == [None, Stop.KNOWN]
    assert pages[0].records[1].abstract == "Abstract 1, rewritten for v2."


@pytest.mark.django_db
def test_known_arxiv_ids_are_those_with_the_same_abstract_in_one_query(
    django_assert_num_queries,
):
    make_paper(arxiv_id="2403.00001", abstract="Abstract 1.")
    make_paper(arxiv_id="2403.00002", abstract="Abstract 2, as it was in v1.")
    make_paper(abstract="Abstract 3.")  # no arXiv id: never known by one
    fingerprints = {f"2403.0000{n}": abstract_fingerprint(f"Abstract {n}.") for n in (1, 2, 3, 4)}
    with django_assert_num_queries(1):  # papers with these arXiv ids
        assert Paper.objects.known_arxiv_ids(fingerprints) == {"2403.00001"}


@pytest.mark.django_db
def test_the_catalogue_selector_plugs_in_as_known():
    for n in range(2, 4):
        make_paper(arxiv_id=f"2403.{n:05d}", abstract=f"Abstract {n}.")
    arxiv = FakeArxiv(numbered(6))
    pages = list(fetch_pages(QUERY, arxiv, page_size=2, known=Paper.objects.known_arxiv_ids))
    assert (len(arxiv.calls), pages[-1].stop) == (2, Stop.KNOWN)


def test_an_empty_page_after_the_last_result_ends_the_fetch():
    arxiv = FakeArxiv(numbered(4), total=None)  # a feed without opensearch counts
    pages = list(fetch_pages(QUERY, arxiv, page_size=2))
    assert arxiv.pages_asked() == [(0, 2), (2, 2), (4, 2)]
    assert (len(ids(pages)), pages[-1].records, pages[-1].stop) == (4, [], Stop.END)


def test_an_empty_page_before_arxivs_total_ends_the_fetch_saying_so():
    arxiv = FakeArxiv(numbered(4), total=10)
    pages = list(fetch_pages(QUERY, arxiv, page_size=2))
    assert (len(arxiv.calls), pages[-1].stop) == (3, Stop.EMPTY)


def test_a_query_matching_nothing_fails_with_a_clear_message():
    with pytest.raises(ImportFailed) as failure:
        list(fetch_pages("ti:qwertyuiop", FakeArxiv([])))
    assert str(failure.value) == "arxiv-api: no papers match 'ti:qwertyuiop'"


def test_arxivs_error_entry_fails_with_its_message_and_the_page_it_came_in():
    error = (
        "  <entry>\n"
        "    <id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345</id>\n"
        "    <title>Error</title>\n"
        "    <summary>incorrect id format for 1234.12345</summary>\n"
        "    <updated>2007-10-12T00:00:00-04:00</updated>\n"
        "    <author><name>arXiv api core</name></author>\n"
        "  </entry>\n"
    )
    with pytest.raises(ImportFailed) as failure:
        list(fetch_pages("id:1234.12345", lambda params: feed([error], total=1)))
    assert (failure.value.line, failure.value.message) == (
        10,  # the line of its <entry>
        "incorrect id format for 1234.12345",
    )
    assert failure.value.file == (
        "arxiv-api?search_query=id%3A1234.12345&start=0&max_results=100"
        "&sortBy=submittedDate&sortOrder=descending"
    )


def test_more_than_two_thousand_results_come_in_full_pages_of_two_thousand():
    count = 2_345
    arxiv = FakeArxiv(numbered(count, first_day=date(2030, 1, 1)))
    records = list(fetch_records(QUERY, arxiv, page_size=API_PAGE_LIMIT))
    assert arxiv.pages_asked() == [(0, 2_000), (2_000, 2_000)]
    assert [record.arxiv_id for record in records] == [f"2403.{n:05d}" for n in range(count)]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"page_size": 2_001}, "page size 2001: arXiv gives 1 to 2000 a call"),
        ({"max_results": 0}, "--max 0: at least 1"),
        ({"sort": "relevance"}, "sort 'relevance': one of submittedDate, lastUpdatedDate"),
    ],
)
def test_arguments_arxiv_would_refuse_fail_before_any_call(options, message):
    arxiv = FakeArxiv(numbered(1))
    with pytest.raises(ValueError, match=message):
        list(fetch_pages(QUERY, arxiv, **options))
    assert arxiv.calls == []


def test_without_max_the_fetch_stops_at_arxivs_limit_of_results_a_query(monkeypatch):
    # arXiv's 30,000 made 5, so the test pages 5 entries instead of 30,000.
    monkeypatch.setattr(arxiv_api, "API_RESULT_LIMIT", 5)
    arxiv = FakeArxiv(numbered(8))
    pages = list(fetch_pages(QUERY, arxiv, page_size=2))
    assert (arxiv.pages_asked(), pages[-1].stop) == ([(0, 2), (2, 2), (4, 1)], Stop.API_LIMIT)
