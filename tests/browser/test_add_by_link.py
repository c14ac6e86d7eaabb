"""Adding a paper by its arXiv link in a real Chromium, as a member does: paste the link into a
reading list's "Add paper" box and press Enter, or search for it and press "Add from arXiv"
(a link opened from elsewhere, `/?q=<link>`, adds nothing by itself: issue 43). arXiv is the
local stand-in of bench/standins.py (ARXIV_API_URL points at it), so nothing reaches the
internet: once it answers, the paper is on the list; once it is down (503 to every try), the
page says so and loses nothing, neither the list nor what was typed.
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


def test_a_pasted_arxiv_link_puts_the_paper_on_the_list(page, arxiv, member_list):
    from playwright.sync_api import expect  # the browser fixture skips when it is missing

    console = ConsoleWatch().attach(page)
    page.evaluate("window.__noReload = true")  # an htmx swap keeps it, a page load would not

    paste_into_add_paper(page, LINK)

    items = page.locator("#list-items .reading-list-item")
    expect(items).to_have_count(2)
    expect(items.nth(1)).to_contain_text(TITLE)
    expect(page.locator("#list-items")).to_contain_text(f"Added “{TITLE}”")
    assert page.evaluate("window.__noReload") is True
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

    expect(page.locator("#list-items")).to_contain_text("arXiv did not answer; try again later.")
    # The list is as it was, and the link is still in the box to try again.
    items = page.locator("#list-items .reading-list-item")
    expect(items).to_have_count(1)
    expect(items).to_contain_text("Already listed")
    expect(page.get_by_role("combobox", name="Paper:", exact=True)).to_have_value(LINK)
    assert not Paper.objects.filter(arxiv_id=arxiv_id_of(INDEX)).exists()
    assert not ImportRun.objects.exists()
    assert len(arxiv.log) == single.LOOKUP_TRIES  # asked, and asked again, then it gave up

    # arXiv is back: the same box, Enter again, and the paper is added.
    arxiv.down.clear()
    page.get_by_role("combobox", name="Paper:", exact=True).press("Enter")
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

    expect(page.get_by_role("heading", level=1)).to_contain_text(TITLE)
    paper = Paper.objects.get(arxiv_id=arxiv_id_of(INDEX))
    assert page.url == f"{live_server.url}{paper.get_absolute_url()}"
    assert ImportRun.objects.get().user.username == "dana"
    assert console.problems == []
