"""Adding a paper by its arXiv link in a real Chromium, as a member does: paste the link into a
reading list's "Add paper" box and press Enter, or search for it and press "Add from arXiv"
(a link opened from elsewhere, `/?q=<link>`, adds nothing by itself: issue 43). The request
queues the fetch and the browser follows its page, which polls (htmx) until the task worker,
run here in batch mode once the page is up, has added the paper, then goes on to the list or the
paper. arXiv is the local stand-in of bench/standins.py (ARXIV_API_URL points at it), so nothing
reaches the internet: once it answers, the paper is added; once it is down (503 to every try),
the page says so and the list loses nothing.

Issue 39 point 1 too: a DOI pasted into the home page's box opens its paper; a visitor is told
to log in to fetch one not here; the results' link box adds only its paper.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from annotations.models import ReadingList
from bench.standins import StandIn, arxiv_id_of
from papers.models import ImportRun, Paper
from papers.sources import single
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.factories import make_paper, make_reading_list, make_user
from tests.link_lookup_helpers import run_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The stand-in's third entry: "Über-Parameterised Transformers Generalise 2", by three people.
INDEX = 2
LINK = f"https://arxiv.org/abs/{arxiv_id_of(INDEX)}v1"
TITLE = f"Über-Parameterised Transformers Generalise {INDEX}"


@pytest.fixture
def arxiv(settings, monkeypatch):
    """The local arXiv, with the app pointed at it; stopped when the test ends."""
    with StandIn(notes=0, entries=5) as stand_in:
        settings.ARXIV_API_URL = stand_in.urls["ARXIV_API_URL"]
        settings.ARXIV_API_DELAY = 0
        monkeypatch.setattr(single, "LOOKUP_BACKOFF", 0.0)  # the retry, without the wait
        yield stand_in


@pytest.fixture
def member_list(page, live_server):
    """A member on their reading list's page, which holds one paper already."""
    owner = make_user("dana")
    reading_list = make_reading_list(owner, "To read", papers=[make_paper("Already listed")])
    log_in(page, live_server, "dana")
    page.goto(f"{live_server.url}{reading_list.get_absolute_url()}")
    return reading_list


def paste_into_add_paper(page, text: str) -> None:
    box = page.get_by_role("combobox", name="Paper:", exact=True)
    box.fill(text)  # a paste: the text arrives at once
    box.press("Enter")


def on_the_fetchs_page(page) -> None:
    """Wait for the fetch's page (it says what it fetches from where), then run the worker."""
    from playwright.sync_api import expect

    expect(page.locator("#link-fetch")).to_contain_text("from arXiv")
    run_worker()


def test_a_pasted_arxiv_link_puts_the_paper_on_the_list(page, arxiv, member_list):
    from playwright.sync_api import expect  # the browser fixture skips when it is missing

    console = ConsoleWatch().attach(page)

    paste_into_add_paper(page, LINK)
    on_the_fetchs_page(page)

    items = page.locator("#list-items .reading-list-item")
    expect(items).to_have_count(2)  # back on the list, the paper on it
    expect(items.nth(1)).to_contain_text(TITLE)
    assert page.url.endswith(member_list.get_absolute_url())
    paper = Paper.objects.get(arxiv_id=arxiv_id_of(INDEX))
    assert [item.paper.title for item in ReadingList.objects.get().items.order_by("pk")] == [
        "Already listed",
        paper.title,
    ]
    assert ImportRun.objects.get().user.username == "dana"
    assert any("id_list=" in path for path in arxiv.log)
    assert console.problems == []


def test_an_arxiv_that_is_down_is_said_and_nothing_is_lost(page, arxiv, member_list):
    from playwright.sync_api import expect

    console = ConsoleWatch().attach(page)
    arxiv.down.add("arxiv")

    paste_into_add_paper(page, LINK)
    on_the_fetchs_page(page)

    expect(page.locator("#link-fetch")).to_contain_text("arXiv did not answer; try again later.")
    assert not Paper.objects.filter(arxiv_id=arxiv_id_of(INDEX)).exists()
    assert not ImportRun.objects.exists()
    assert len(arxiv.log) == single.LOOKUP_TRIES  # asked, and asked again, then it gave up

    # "Try again" leads back to the list, as it was; arXiv is back, and the paper is added.
    page.get_by_role("link", name="Try again").click()
    items = page.locator("#list-items .reading-list-item")
    expect(items).to_have_count(1)
    expect(items).to_contain_text("Already listed")
    arxiv.down.clear()
    paste_into_add_paper(page, LINK)
    on_the_fetchs_page(page)
    expect(items).to_have_count(2)
    expect(items.nth(1)).to_contain_text(TITLE)
    assert console.problems == []


def test_a_search_for_a_link_adds_nothing_until_the_member_presses_add(page, arxiv, live_server):
    from playwright.sync_api import expect

    make_user("dana")
    log_in(page, live_server, "dana")
    console = ConsoleWatch().attach(page)

    # As a link on another site would send the member's browser, cookie and all.
    page.goto(f"{live_server.url}/?q={quote(LINK, safe='')}")

    expect(page.locator(".add-by-link")).to_contain_text("is not in the catalogue yet")
    assert not arxiv.log and not Paper.objects.exists() and not ImportRun.objects.exists()

    page.get_by_role("button", name="Add from arXiv").click()
    on_the_fetchs_page(page)

    expect(page.get_by_role("heading", level=1)).to_contain_text(TITLE)
    paper = Paper.objects.get(arxiv_id=arxiv_id_of(INDEX))
    assert page.url == f"{live_server.url}{paper.get_absolute_url()}"
    assert ImportRun.objects.get().user.username == "dana"
    assert console.problems == []


# --- Every search box takes a link (issue 39, point 1) ----------------------------------------

DOI = "10.1145/3292500.3330701"


def paste_into_home_box(page, text: str) -> None:
    """Paste `text` into the home page's search box, as a clipboard paste arrives (a paste
    event, then the text)."""
    box = page.locator("#q")
    box.focus()
    box.evaluate(
        """(box, text) => {
            const data = new DataTransfer();
            data.setData("text/plain", text);
            box.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true}));
        }""",
        text,
    )
    page.keyboard.insert_text(text)


def test_a_doi_pasted_into_the_home_box_opens_its_paper(page, live_server):
    from playwright.sync_api import expect

    paper = make_paper("Optuna, known here", doi=DOI)
    make_paper("Something else")
    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}/")

    paste_into_home_box(page, f"https://doi.org/{DOI}")

    expect(page).to_have_url(f"{live_server.url}{paper.get_absolute_url()}")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Optuna, known here")
    assert console.problems == []


def test_a_doi_sent_from_the_header_box_opens_its_paper(page, live_server):
    from playwright.sync_api import expect

    paper = make_paper("Optuna, known here", doi=DOI)
    other = make_paper("Another paper")
    page.goto(f"{live_server.url}{other.get_absolute_url()}")

    page.locator("#header-q").fill(DOI)
    page.locator("#header-q").press("Enter")

    expect(page).to_have_url(f"{live_server.url}{paper.get_absolute_url()}")


def test_a_visitor_is_told_to_log_in_to_fetch_a_paper_not_here(page, live_server, arxiv):
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/")
    paste_into_home_box(page, LINK)

    hint = page.locator(".add-by-link")
    expect(hint).to_contain_text("Members can add it from arXiv: log in to fetch it.")
    hint.get_by_role("link", name="log in").click()
    expect(page).to_have_url(
        f"{live_server.url}/accounts/login/?next=%2F%3Fq%3D{quote(quote(LINK, safe=''), safe='')}"
    )
    assert not arxiv.log and not Paper.objects.filter(arxiv_id=arxiv_id_of(INDEX)).exists()


def test_the_results_link_box_adds_only_its_paper(page, live_server, arxiv):
    from playwright.sync_api import expect

    for n in range(3):
        make_paper(f"Graph paper {n}")
    reading_list = make_reading_list(make_user("dana"), "Tools")
    log_in(page, live_server, "dana")
    page.goto(f"{live_server.url}/?q=graph")
    page.locator(".paper-item").first.locator("[data-triage-check]").check()  # one ticked

    box = page.get_by_role("group", name="Add a paper by its link")
    expect(box).to_be_visible()
    box.get_by_label("Add by link").fill(LINK)
    box.get_by_role("button", name="Add to list").click()
    on_the_fetchs_page(page)

    expect(page.get_by_role("heading", level=1)).to_contain_text("Tools")
    assert [item.paper.title for item in reading_list.items.all()] == [TITLE]


def test_the_results_link_box_shows_with_nothing_ticked(page, live_server):
    from playwright.sync_api import expect

    make_paper("Graph paper")
    make_reading_list(make_user("dana"), "Tools")
    log_in(page, live_server, "dana")
    page.goto(f"{live_server.url}/?q=graph")

    expect(page.get_by_role("group", name="Add a paper by its link")).to_be_visible()
    expect(page.get_by_role("button", name="Save selected")).to_be_hidden()
