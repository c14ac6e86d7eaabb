"""The header's links at desktop and narrow widths: inline from about 900px, folded into
one Menu below that."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.journey_helpers import log_in
from tests.factories import make_paper, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LINKS = ["Papers", "My notes", "My lists", "Saved searches", "Recommended", "Lab", "Log out"]


def _member_on_a_paper(page, live_server):
    make_user("gil")
    paper = make_paper("Header paper")
    log_in(page, live_server, "gil")
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")


@pytest.mark.parametrize("width", [1280, 900])
def test_desktop_widths_show_the_links_inline_without_a_menu(page, live_server, width):
    page.set_viewport_size({"width": width, "height": 900})
    _member_on_a_paper(page, live_server)
    nav = page.get_by_role("navigation", name="Main", exact=True)
    for name in LINKS:
        expect(
            nav.get_by_role("link" if name != "Log out" else "button", name=name)
        ).to_be_visible()
    expect(page.locator(".site-nav-menu summary")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing sticks out


def test_narrow_screens_fold_the_links_into_the_menu(page, live_server):
    page.set_viewport_size({"width": 800, "height": 900})
    _member_on_a_paper(page, live_server)
    expect(page.get_by_role("navigation", name="Main", exact=True)).to_be_hidden()
    page.locator(".site-nav-menu summary").click()
    menu = page.get_by_role("navigation", name="Main (menu)")
    expect(menu.get_by_role("link", name="My lists")).to_be_visible()
