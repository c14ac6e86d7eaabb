"""Paper suggestions in a real Chromium, under the real CSP (static/js/suggest.js).

On a reading list, part of a title typed in the "Add paper" box brings suggestions naming the
title, authors and venue; picking one with the keyboard adds that paper. In the header's search
box, picking a suggestion opens the paper. The server side is tests/test_suggest.py.
"""

from __future__ import annotations

import pytest

from annotations.models import ReadingList
from papers.models import TagKind
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.factories import make_paper, make_reading_list, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def catalogue(db):
    venue = [("ICLR 2024", TagKind.VENUE)]
    return {
        "dit": make_paper(
            "Scalable Diffusion Transformers",
            authors=["William Peebles", "Saining Xie"],
            tags=venue,
        ),
        "policy": make_paper("Diffusion Policy for robots", authors=["Cheng Chi"], tags=venue),
        "attention": make_paper("Sparse attention", authors=["Ada Lovelace"]),
    }


def axe_violations(page) -> list[str]:
    from tests.browser.test_accessibility import _violations

    return _violations(page)


def test_pick_a_suggestion_with_the_keyboard_to_add_it_to_a_list(
    page, live_server, catalogue, screenshot
):
    from playwright.sync_api import expect

    console = ConsoleWatch().attach(page)
    owner = make_user("carol")
    reading_list = make_reading_list(owner, "To read")
    log_in(page, live_server, "carol")
    page.goto(f"{live_server.url}{reading_list.get_absolute_url()}")
    page.evaluate("window.__noReload = true")  # an htmx swap keeps it, a page load would not

    box = page.get_by_role("combobox", name="Paper:", exact=True)
    expect(box).to_have_attribute("aria-expanded", "false")
    box.press_sequentially("diffusion transf", delay=20)
    listbox = page.locator("#id_paper-suggestions")
    expect(listbox).to_have_attribute("role", "listbox")
    option = listbox.get_by_role("option")
    expect(option).to_have_count(1)
    expect(box).to_have_attribute("aria-expanded", "true")
    expect(option).to_contain_text("Scalable Diffusion Transformers")
    expect(option).to_contain_text("William Peebles, Saining Xie · ICLR 2024")

    box.press("ArrowDown")
    expect(option).to_have_attribute("aria-selected", "true")
    screenshot("suggest-add-paper")
    assert axe_violations(page) == []  # the open list and its highlighted option
    expect(box).to_have_attribute("aria-activedescendant", option.get_attribute("id"))
    box.press("Enter")

    items = page.locator("#list-items .reading-list-item")
    expect(items).to_have_count(1)
    expect(items).to_contain_text("Scalable Diffusion Transformers")
    expect(page.locator("#list-items")).to_contain_text("Added")
    # The box is back, empty and focused, for the next paper.
    expect(page.get_by_role("combobox", name="Paper:", exact=True)).to_be_focused()
    assert page.evaluate("window.__noReload") is True
    assert [item.paper for item in ReadingList.objects.get().items.all()] == [catalogue["dit"]]

    # Escape closes the list; the arrows bring it back.
    box = page.get_by_role("combobox", name="Paper:", exact=True)
    box.press_sequentially("diffusion", delay=20)
    expect(listbox.get_by_role("option")).to_have_count(2)
    box.press("Escape")
    expect(box).to_have_attribute("aria-expanded", "false")
    expect(listbox).to_be_hidden()
    box.press("ArrowDown")
    expect(box).to_have_attribute("aria-expanded", "true")
    expect(listbox.get_by_role("option").first).to_have_attribute("aria-selected", "true")
    box.press("ArrowUp")  # wraps round to the last
    expect(listbox.get_by_role("option").last).to_have_attribute("aria-selected", "true")
    assert console.problems == []


def test_a_whole_title_and_enter_adds_the_paper_without_picking(page, live_server, catalogue):
    from playwright.sync_api import expect

    console = ConsoleWatch().attach(page)
    owner = make_user("dora")
    reading_list = make_reading_list(owner, "Queue")
    log_in(page, live_server, "dora")
    page.goto(f"{live_server.url}{reading_list.get_absolute_url()}")
    box = page.get_by_role("combobox", name="Paper:", exact=True)
    box.fill("sparse attention")
    box.press("Enter")
    expect(page.locator("#list-items .reading-list-item")).to_contain_text("Sparse attention")
    box = page.get_by_role("combobox", name="Paper:", exact=True)
    box.fill("Diffusion")
    box.press("Enter")
    expect(page.locator("#list-items")).to_contain_text(
        "No paper matches “Diffusion”. Pick one from the suggestions."
    )
    assert [item.paper for item in reading_list.items.all()] == [catalogue["attention"]]
    assert console.problems == []


def test_header_search_opens_the_picked_paper(page, live_server, catalogue, screenshot):
    from playwright.sync_api import expect

    console = ConsoleWatch().attach(page)
    paper = catalogue["policy"]
    page.goto(f"{live_server.url}{catalogue['attention'].get_absolute_url()}")
    box = page.locator("#header-q")
    expect(box).to_have_attribute("role", "combobox")
    box.press_sequentially("cheng", delay=20)
    option = page.locator("#header-q-suggestions").get_by_role("option")
    expect(option).to_have_count(1)
    expect(option).to_contain_text("Diffusion Policy for robots")
    box.press("ArrowDown")
    screenshot("suggest-header")
    box.press("Enter")
    page.wait_for_url(f"{live_server.url}{paper.get_absolute_url()}")
    assert console.problems == []


def test_header_search_enter_without_picking_searches(page, live_server, catalogue):
    page.goto(f"{live_server.url}{catalogue['attention'].get_absolute_url()}")
    box = page.locator("#header-q")
    box.press_sequentially("diffusion", delay=20)
    page.locator("#header-q-suggestions").get_by_role("option").first.wait_for()
    box.press("Enter")
    page.wait_for_url(f"{live_server.url}/?q=diffusion")


def test_typing_quickly_asks_once_for_the_last_text(page, live_server, catalogue):
    from playwright.sync_api import expect

    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/suggest/" in r.url else None)
    page.goto(f"{live_server.url}{catalogue['attention'].get_absolute_url()}")
    box = page.locator("#header-q")
    box.press_sequentially("scalable diff")  # keys well inside the 150 ms pause
    option = page.locator("#header-q-suggestions").get_by_role("option")
    expect(option).to_have_count(1)
    # Once as a rule; a loaded test machine may pause longer between two keys now and then.
    assert asked[-1] == f"{live_server.url}/suggest/?q=scalable+diff"
    assert len(asked) <= 3
    # Clearing the box closes the list without asking.
    box.fill("")
    expect(box).to_have_attribute("aria-expanded", "false")
    asked_before = len(asked)
    page.wait_for_timeout(300)
    assert len(asked) == asked_before


@pytest.mark.parametrize("width", [390, 560])
def test_header_suggestions_stay_on_a_narrow_screen(browser, live_server, catalogue, width):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": width, "height": 800}, is_mobile=True)
    page = context.new_page()
    page.goto(f"{live_server.url}{catalogue['attention'].get_absolute_url()}")
    page.locator("#header-q").press_sequentially("diffusion", delay=20)
    popup = page.locator("#header-q-suggestions")
    expect(popup.get_by_role("option")).to_have_count(2)
    box = popup.bounding_box()
    # On screen, and as wide as the screen allows rather than squeezed beside the brand.
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert box["width"] >= width * 0.9
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()
