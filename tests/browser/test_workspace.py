"""The paper page as a workspace in a real browser: the annotations column in view at 1280 px,
previous/next that keep the search typed into the list's box, the header on a phone."""

from __future__ import annotations

import re

import pytest

from papers.models import TagKind
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.factories import make_comment, make_paper, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_ABSTRACT = " ".join(["Graph networks learn message passing over many layers."] * 150)


def _in_viewport(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    viewport = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["y"] + min(box["height"], 200) <= viewport["height"]
        and box["x"] + box["width"] <= viewport["width"]
    )


def test_the_annotations_column_is_in_view_beside_a_long_paper_at_1280px(page, live_server):
    make_user("dana")
    paper = make_paper("A long paper", abstract=LONG_ABSTRACT, authors=["Ada Lovelace"])
    watch = ConsoleWatch().attach(page)
    log_in(page, live_server, "dana")

    page.goto(f"{live_server.url}{paper.get_absolute_url()}")

    assert page.evaluate("window.scrollY") == 0
    for section in ("#paper-notes", "#paper-lists", "#paper-tags"):
        assert _in_viewport(page, section), f"{section} is not in view without scrolling"
    article = page.locator("article.paper").bounding_box()
    panel = page.locator("aside.annotations").bounding_box()
    assert panel["x"] >= article["x"] + article["width"]  # beside the paper, not under it
    # The column stays in view while the abstract is read.
    page.evaluate("window.scrollTo(0, 1500)")
    assert page.evaluate("window.scrollY") > 1000
    assert _in_viewport(page, "#paper-notes")
    assert watch.problems == []


def test_a_long_panel_flows_with_the_page_and_its_last_button_is_reached(page, live_server):
    """Issue 28, point 5: the panel is no scroll box of its own; with a long discussion the
    comment box and its button come into view by scrolling the page."""
    member = make_user("dora")
    paper = make_paper("A discussed paper", abstract="Short.", authors=["Ada Lovelace"])
    for n in range(25):
        make_comment(member, paper, f"Comment number {n}, with a line or two of text. " * 3)
    log_in(page, live_server, "dora")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")

    boxes = page.evaluate(
        """[...document.querySelectorAll('aside.annotations, aside.annotations *')]
             .filter(e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowY)
                          && e.scrollHeight > e.clientHeight + 1 && e.tagName !== 'TEXTAREA')
             .map(e => e.tagName + '.' + e.className)"""
    )
    assert boxes == []
    panel = page.locator("aside.annotations").bounding_box()
    assert panel["height"] > 900  # longer than the window
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    button = page.get_by_role("button", name="Post comment")
    assert _in_viewport(page, "#paper-comments > form button[type=submit]")
    button.click(trial=True)  # nothing covers it


def test_previous_and_next_keep_the_search_typed_into_the_box(page, live_server):
    from playwright.sync_api import expect  # the browser fixture skips when it is missing

    for letter in "ABCD":
        make_paper(
            f"{letter} graph study",
            abstract=f"Graphs, part {letter}.",
            tags=[("Oral", TagKind.TRACK)],
        )
    make_paper("E graph poster", abstract="Graphs.", tags=[("Poster", TagKind.TRACK)])
    make_paper("Unrelated", abstract="Nothing here.", tags=[("Oral", TagKind.TRACK)])
    watch = ConsoleWatch().attach(page)

    page.goto(f"{live_server.url}/")
    page.fill("#q", "graph")
    page.press("#q", "Enter")
    page.wait_for_selector("text=5 papers for “graph”")
    page.locator(".facet-value label", has_text="Oral").first.click()
    page.wait_for_selector("text=4 papers for “graph”")
    page.select_option("#sort", "title")
    # "A" may lead the list by relevance too: wait for the sorted results' address, or the
    # click below can land on the list the sort is about to replace.
    expect(page).to_have_url(re.compile(r"[?&]sort=title(&|$)"))
    expect(page.locator(".paper-item .paper-title").first).to_have_text("A graph study")

    page.locator(".paper-title a", has_text="B graph study").click()
    page.wait_for_selector("h1:has-text('B graph study')")
    assert page.locator(".results-nav").inner_text().count("Result 2 of 4") == 1
    page.click("a[rel=next]")
    page.wait_for_selector("h1:has-text('C graph study')")
    page.click("a[rel=next]")
    page.wait_for_selector("h1:has-text('D graph study')")
    assert page.locator("a[rel=next]").count() == 0  # the poster and the other paper are out
    page.click("a[rel=prev]")
    page.wait_for_selector("h1:has-text('C graph study')")

    page.click("text=Back to results")
    page.wait_for_selector("#q")
    assert page.input_value("#q") == "graph"
    assert page.input_value("#sort") == "title"
    titles = page.locator(".paper-item .paper-title").all_inner_texts()
    assert [title.strip() for title in titles] == [f"{x} graph study" for x in "ABCD"]
    assert watch.problems == []


def test_the_header_is_one_line_on_a_phone(browser, live_server):
    make_user("erin")
    paper = make_paper("Phone paper")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        log_in(page, live_server, "erin")
        page.goto(f"{live_server.url}{paper.get_absolute_url()}")
        header = page.locator(".site-header").bounding_box()
        brand = page.locator(".brand").bounding_box()
        assert header["height"] < brand["height"] * 2.5  # one row, not three
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing sticks out
        page.click(".member-menu summary")
        page.click(".member-menu >> text=Lists")
        page.wait_for_url(f"{live_server.url}/lists/")
    finally:
        context.close()
