"""The paper list on a phone (390 px wide) in a real Chromium: nothing sticks out sideways,
logged in (the triage controls and the "mine" facet add width) or with a long search."""

from __future__ import annotations

import pytest

from papers.models import TagKind
from tests.browser.journey_helpers import PHONE, log_in, overflow
from tests.factories import make_paper, make_reading_list, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def library(db):
    erin = make_user("erin")
    # The triage controls' list menu is as wide as its longest name.
    make_reading_list(erin, "Papers to read before the reading group meets on Thursday")
    for n in range(3):
        make_paper(
            f"Graph networks, part {n}",
            abstract="Message passing on graphs.",
            tags=[("Oral", TagKind.TRACK), ("Graph neural networks", TagKind.KEYWORD)],
        )
    # Words longer than a phone is wide, in a title and an abstract (a browser breaks an
    # address after its slashes, but not a long identifier).
    name = "graph_message_passing_benchmark_suite_with_every_dataset_configured"
    make_paper(f"Graph benchmarks: {name}", abstract=f"Graph code: {name}.")


def test_the_list_fits_a_phone_logged_in(phone, live_server, library):
    log_in(phone, live_server, "erin")
    phone.goto(f"{live_server.url}/")
    phone.wait_for_selector(".paper-item")
    assert overflow(phone) <= 0
    phone.goto(f"{live_server.url}/?q=graph")
    phone.wait_for_selector(".paper-item .snippet")
    assert overflow(phone) <= 0


@pytest.mark.parametrize("query", ["x" * 300, "graph" + "s" * 295])
def test_a_long_search_without_spaces_wraps_on_a_phone(phone, live_server, library, query):
    log_in(phone, live_server, "erin")
    phone.goto(f"{live_server.url}/?q={query}")
    phone.wait_for_selector(".results-count")
    assert overflow(phone) <= 0


def test_on_a_phone_the_bulk_actions_wait_for_a_selection(phone, live_server, library):
    from playwright.sync_api import expect

    log_in(phone, live_server, "erin")
    phone.goto(f"{live_server.url}/")
    save_selected = phone.get_by_role("button", name="Save selected")
    # The bulk actions (status, list, tag, keys) used to fill the first screen above the
    # results; until a result is ticked only "Select all on this page" shows.
    expect(save_selected).to_be_hidden()
    expect(phone.get_by_role("checkbox", name="Select all on this page")).to_be_visible()
    first_title = phone.locator(".paper-item .paper-title").first
    box = first_title.bounding_box()
    assert box is not None and box["y"] + box["height"] < PHONE["height"] * 0.75
    phone.locator(".paper-item [data-triage-check]").first.check()
    expect(save_selected).to_be_visible()
    expect(phone.get_by_role("button", name="Tag selected")).to_be_visible()
    phone.locator(".paper-item [data-triage-check]").first.uncheck()
    expect(save_selected).to_be_hidden()
    phone.get_by_role("checkbox", name="Select all on this page").check()
    expect(save_selected).to_be_visible()
    assert overflow(phone) <= 0


def test_page_links_each_stay_on_one_line_on_a_phone(phone, live_server, library):
    for n in range(46):  # with the library's 4: 50 papers, 5 pages of 10
        make_paper(f"Filler {n}")
    phone.goto(f"{live_server.url}/?per_page=10&page=3")
    items = phone.locator(".pagination > *")
    assert items.all_inner_texts() == ["« First", "← Previous", "Page 3 of 5", "Next →", "Last »"]
    # Lines each item's text is laid out on ("← Previous" broke after its arrow).
    lines = phone.evaluate(
        """[...document.querySelectorAll('.pagination > *')].map(item => {
            const range = document.createRange();
            range.selectNodeContents(item);
            return new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size;
        })"""
    )
    assert lines == [1, 1, 1, 1, 1]
    assert overflow(phone) <= 0
