"""The header in a real Chromium (issue 28, point 3): Papers, Lists, Lab, the notifications and a
member's menu on one row at 1366 px; on a phone one row of at most 64 px, the links behind
"Menu" and the unread count as a labelled badge; a visitor's few links on one row too."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotations.discussion import post_comment
from annotations.models import Notification
from tests.browser.journey_helpers import PHONE, log_in
from tests.factories import make_paper, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROW = ["Papers", "Lists", "Lab"]
MENU = [
    "My notes",
    "Saved searches",
    "Recommended",
    "Shared lists",
    "Recent activity",
    "Capture bookmarklet",
    "Reading groups",
    "API tokens",
    "Account",
]
MAX_PHONE_HEADER = 64


def _one_row(page) -> None:
    """Every visible item of the header sits on one line: their vertical middles agree."""
    middles = page.evaluate(
        """[...document.querySelectorAll('.site-header .brand, .site-header .header-search,'
                                          + '.nav-row > li, .member-menu > summary')]
             .filter(e => e.getClientRects().length)
             .map(e => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; })"""
    )
    assert middles and max(middles) - min(middles) <= 6, middles


def _member_with_an_unread_mention(page, live_server):
    member = make_user("gil")
    paper = make_paper("Header paper")
    post_comment(paper=paper, author=make_user("hal"), body="Worth a look, @gil?")
    assert Notification.objects.filter(recipient=member).count() == 1
    log_in(page, live_server, "gil")
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")


def test_a_members_header_is_one_row_at_1366px(page, live_server):
    page.set_viewport_size({"width": 1366, "height": 900})
    _member_with_an_unread_mention(page, live_server)
    nav = page.get_by_role("navigation", name="Main", exact=True)
    for name in ROW:
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(nav.get_by_role("link", name="Notifications, 1 unread")).to_be_visible()
    expect(nav.locator(".badge-unread")).to_have_text("1 unread")
    _one_row(page)
    assert page.locator(".site-header").bounding_box()["height"] <= MAX_PHONE_HEADER
    # The rest waits in the member's menu, which opens in place and closes on Escape.
    expect(nav.get_by_role("link", name="My notes")).to_be_hidden()
    nav.locator(".member-menu summary").click()
    for name in MENU:
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(nav.get_by_role("button", name="Log out")).to_be_visible()
    page.keyboard.press("Escape")
    expect(nav.get_by_role("link", name="My notes")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366


def test_on_a_phone_the_header_is_one_short_row_with_the_rest_behind_menu(browser, live_server):
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    try:
        _member_with_an_unread_mention(page, live_server)
        header = page.locator(".site-header").bounding_box()
        assert header["height"] <= MAX_PHONE_HEADER, header
        _one_row(page)
        nav = page.get_by_role("navigation", name="Main", exact=True)
        # The unread count says what it counts.
        unread = nav.get_by_role("link", name="Notifications, 1 unread")
        expect(unread.locator(".badge-unread")).to_have_text("1 unread")
        assert unread.locator(".nav-notifications-label").bounding_box()["width"] <= 1
        expect(nav.get_by_role("link", name="Lists", exact=True)).to_be_hidden()
        nav.get_by_text("Menu", exact=True).click()
        for name in [*ROW, "Notifications", *MENU]:
            expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        nav.get_by_role("link", name="Lists", exact=True).click()
        page.wait_for_url(f"{live_server.url}/lists/")
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [{"width": 1366, "height": 900}, PHONE])
def test_a_visitors_header_is_one_row(browser, live_server, viewport):
    paper = make_paper("Header paper")
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}{paper.get_absolute_url()}")
        expect(page.get_by_role("link", name="Log in", exact=True)).to_be_visible()
        _one_row(page)
        assert page.locator(".site-header").bounding_box()["height"] <= MAX_PHONE_HEADER
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    finally:
        context.close()
