"""manage.py fetch_arxiv against arXiv's API replayed by respx (pages written as arXiv sends
them, tests/arxiv_feed.py): every paper imported with its arXiv id, a second run stops at the
first page it already has, failures name the URL and write nothing."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx
from django.core.management import CommandError, call_command
from django.urls import reverse

from papers.models import ImportRun, Paper
from tests.arxiv_feed import atom_entry, feed

pytestmark = pytest.mark.django_db

API = "https://arxiv.test/api/query"


@pytest.fixture(autouse=True)
def arxiv_settings(settings):
    settings.ARXIV_API_URL = API
    settings.ARXIV_API_DELAY = 0


def folded_entries(count: int) -> list[str]:
    """`count` entries newest first, each title folded over two lines as arXiv wraps them."""
    return [
        atom_entry(
            f"2404.{n:05d}",
            published=f"2024-04-{1 + n % 28:02d}T12:00:00Z",
            title=f"Diffusion paper number {n} with a title long enough\n      to be folded",
            summary=f"We study diffusion, case {n}.",
            authors=(f"Ann Author{n}", "Bo Écrivain"),
        )
        for n in range(count)
    ]


def serve(entries: list[str]) -> respx.Route:
    """arXiv's pages of `entries`, as its start and max_results ask."""

    def answer(request: httpx.Request) -> httpx.Response:
        params = {k: v[0] for k, v in parse_qs(urlsplit(str(request.url)).query).items()}
        start, size = int(params["start"]), int(params["max_results"])
        page = feed(entries[start : start + size], total=len(entries), start=start)
        return httpx.Response(200, text=page, headers={"Content-Type": "application/atom+xml"})

    return respx.get(API).mock(side_effect=answer)


@respx.mock
def test_a_query_of_2100_papers_imports_each_with_its_arxiv_id(client, capsys):
    route = serve(folded_entries(2100))
    call_command("fetch_arxiv", "cat:cs.LG AND abs:diffusion", "--page-size", "1000")
    assert route.call_count == 3
    assert Paper.objects.count() == 2100
    paper = Paper.objects.get(arxiv_id="2404.00007")
    assert paper.title == "Diffusion paper number 7 with a title long enough to be folded"
    page = client.get(reverse("papers:detail", args=[paper.pk])).content.decode()
    assert "2404.00007" in page
    out = capsys.readouterr().out
    assert "2100 papers" in out and "2100 created" in out
    assert ImportRun.objects.get().invoked_by.startswith("manage.py fetch_arxiv")


@respx.mock
def test_a_second_run_stops_at_the_first_page_it_already_has_and_changes_nothing(capsys):
    route = serve(folded_entries(300))
    call_command("fetch_arxiv", "abs:diffusion", "--page-size", "100")
    assert route.call_count == 3
    capsys.readouterr()
    call_command("fetch_arxiv", "abs:diffusion", "--page-size", "100")
    assert route.call_count == 4  # one page, all known: no more asked
    out = capsys.readouterr().out
    assert "0 created, 0 updated, 100 unchanged" in out
    assert Paper.objects.count() == 300


@respx.mock
def test_an_unreachable_arxiv_is_a_one_line_error_naming_the_url_and_writes_nothing(settings):
    respx.get(API).mock(return_value=httpx.Response(404))
    with pytest.raises(CommandError, match=r"https://arxiv\.test/api/query\?.*404"):
        call_command("fetch_arxiv", "abs:diffusion")
    assert not Paper.objects.exists() and not ImportRun.objects.exists()


@respx.mock
def test_a_query_matching_nothing_says_so():
    respx.get(API).mock(return_value=httpx.Response(200, text=feed([], total=0)))
    with pytest.raises(CommandError, match="no papers match"):
        call_command("fetch_arxiv", "abs:nothingatall")


def test_a_bad_since_date_is_refused_before_any_call():
    with pytest.raises(CommandError, match="--since: expected a date"):
        call_command("fetch_arxiv", "abs:diffusion", "--since", "yesterday")
