"""The paper list with the keyboard in a real Chromium: a facet ticked with the keyboard keeps
the focus when the results are swapped in place, and the Sort and Per-page menus wait for a
committed choice (Enter, leaving the menu, or the mouse) instead of reloading the results at
every arrow key."""

from __future__ import annotations

import re

import pytest

from papers.models import TagKind
from tests.browser.journey_helpers import ConsoleWatch
from tests.factories import make_paper

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def library(db):
    for title, track in [("Alpha", "Oral"), ("Beta", "Poster"), ("Gamma", "Oral")]:
        make_paper(title, abstract="About graphs.", tags=[(track, TagKind.TRACK)])


def result_requests(page) -> list[str]:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "per_page" in r.url else None)
    return requests


def focused_id(page) -> str:
    return page.evaluate("document.activeElement.id")


def test_a_facet_ticked_with_the_keyboard_keeps_the_focus(page, live_server, library):
    from playwright.sync_api import expect

    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}/")
    oral = page.get_by_role("checkbox", name="Oral")
    oral.focus()
    box_id = focused_id(page)
    assert box_id

    page.keyboard.press("Space")
    expect(page.get_by_role("heading", level=1)).to_have_text("2 papers")
    assert focused_id(page) == box_id
    # Still in the facet: Space unticks the same box.
    page.keyboard.press("Space")
    expect(page.get_by_role("heading", level=1)).to_have_text("3 papers")
    assert focused_id(page) == box_id
    assert console.problems == []


def test_arrow_keys_in_the_sort_menu_wait_for_enter(page, live_server, library):
    from playwright.sync_api import expect

    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}/")
    requests = result_requests(page)
    sort = page.locator("#sort")
    sort.focus()

    page.keyboard.press("ArrowUp")  # from "Newest imported" to "Title"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    chosen = sort.input_value()
    assert chosen == "title"
    page.wait_for_timeout(500)
    assert requests == []  # stepping through the options asks for nothing

    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"[?&]sort={chosen}(&|$)"))
    assert len(requests) == 1
    expect(page.locator("#sort")).to_be_focused()
    assert page.locator("#sort").input_value() == chosen
    assert console.problems == []


def test_a_page_size_stepped_to_with_arrows_is_asked_for_on_leaving_the_menu(
    page, live_server, library
):
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/")
    requests = result_requests(page)
    per_page = page.locator("#per_page")
    per_page.focus()
    page.keyboard.press("ArrowDown")
    chosen = per_page.input_value()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    assert requests == []

    page.keyboard.press("Tab")
    expect(page).to_have_url(re.compile(rf"[?&]per_page={chosen}(&|$)"))
    assert len(requests) == 1
    expect(page.locator("#per_page")).to_have_value(chosen)
    # Back in the menu and out again without a change: nothing more is asked.
    page.locator("#per_page").focus()
    page.keyboard.press("Tab")
    page.wait_for_timeout(500)
    assert len(requests) == 1


def test_a_menu_choice_made_with_the_mouse_applies_at_once(page, live_server, library):
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/")
    page.select_option("#sort", "title")
    expect(page.locator(".paper-title").first).to_have_text("Alpha")
    expect(page).to_have_url(re.compile(r"[?&]sort=title(&|$)"))


def test_back_shows_the_menus_as_they_were_and_the_choice_can_be_made_again(
    page, live_server, library
):
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/?sort=newest")
    first = page.locator(".paper-title").first.inner_text()
    page.select_option("#sort", "title")
    expect(page).to_have_url(re.compile(r"[?&]sort=title(&|$)"))
    page.select_option("#per_page", "10")
    expect(page).to_have_url(re.compile(r"[?&]per_page=10(&|$)"))

    page.go_back()
    expect(page).not_to_have_url(re.compile(r"per_page"))
    expect(page.locator("#sort")).to_have_value("title")
    expect(page.locator("#per_page")).to_have_value("25")
    page.go_back()
    expect(page).not_to_have_url(re.compile(r"sort=title"))
    expect(page.locator(".paper-title").first).to_have_text(first)
    # The menu shows the order the results are in, and choosing Title again sorts them.
    expect(page.locator("#sort")).to_have_value("newest")
    page.select_option("#sort", "title")
    expect(page).to_have_url(re.compile(r"[?&]sort=title(&|$)"))
    expect(page.locator(".paper-title").first).to_have_text("Alpha")


def test_escape_in_the_search_box_leaves_it_for_the_keys_and_keeps_the_search(
    page, live_server, library
):
    from playwright.sync_api import expect

    make_paper("Delta", abstract="About trees.")
    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}/")
    box = page.get_by_role("searchbox", name=re.compile("Search"))
    box.fill("graphs")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"q=graphs"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("3 papers")
    # Chromium empties a search box on Escape, and the emptied box searched again for every
    # paper; Escape now leaves the box, search and results as they were.
    box.press("Escape")
    expect(box).not_to_be_focused()
    expect(box).to_have_value("graphs")
    page.keyboard.press("j")  # a key for the results, not a letter typed into the box
    expect(page.locator(".paper-item.is-current")).to_have_count(1)
    expect(box).to_have_value("graphs")
    expect(page).to_have_url(re.compile(r"q=graphs"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("3 papers")
    assert console.problems == []
