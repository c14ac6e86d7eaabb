"""Search as you type in a real Chromium, under the real CSP: results and facet counts follow
the keystrokes without a submit, the URL keeps in step, and the back button restores the
previous search (htmx history). The server side is tests/test_search_as_you_type.py."""

from __future__ import annotations

import re

import pytest

from papers.models import TagKind
from tests.browser.journey_helpers import ConsoleWatch
from tests.factories import make_paper

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ORAL, POSTER = ("Oral", TagKind.TRACK), ("Poster", TagKind.TRACK)


@pytest.fixture
def library(db):
    papers = [
        ("Diffusion sampling with few steps", ORAL),
        ("Fast sampling for diffusion models", POSTER),
        ("Diffusion policies for robots", POSTER),
        ("Importance sampling revisited", POSTER),
        ("Sample efficient reinforcement learning", ORAL),
        ("Sparse attention for long documents", ORAL),
        ("Message passing on graphs", POSTER),
    ]
    for title, track in papers:
        make_paper(title, abstract=f"A study: {title.lower()}.", tags=[track])
    return len(papers)


# "snapshot": htmx restores the page it saved; "server": with no saved page (a full cache,
# another tab) it asks the server again, with HX-History-Restore-Request, for the whole page.
@pytest.mark.parametrize("history", ["snapshot", "server"])
def test_results_and_counts_follow_typing_and_back_restores(page, live_server, library, history):
    from playwright.sync_api import expect

    console = ConsoleWatch().attach(page)
    heading = page.get_by_role("heading", level=1)
    box = page.get_by_role("searchbox", name="Search papers")
    oral = page.locator("#facet-track .facet-value", has_text="Oral").locator(".count")
    page_loads = []
    page.on("load", lambda _: page_loads.append(page.url))
    restores = []
    page.on(
        "request",
        lambda r: restores.append(r.url) if r.headers.get("hx-history-restore-request") else None,
    )

    page.goto(f"{live_server.url}/")
    expect(heading).to_have_text(f"{library} papers")
    expect(oral).to_have_text("3")
    if history == "server":
        page.evaluate("htmx.config.historyCacheSize = 0")
    box_top = box.bounding_box()["y"]
    loads_before = len(page_loads)

    # Typed letter by letter, faster than the 250 ms pause: one request, for "samp", whose
    # last word matches as a prefix (sample, sampling), with no submit.
    box.click()
    page.keyboard.type("samp", delay=40)
    expect(heading).to_have_text("4 papers for “samp”")
    expect(oral).to_have_text("2")
    page.wait_for_url(re.compile(r"[?&]q=samp(&|$)"))
    assert "typing=1" in page.url
    assert page.title().startswith("Search: samp")
    assert page.evaluate("document.activeElement.id") == "q"
    assert box.bounding_box()["y"] == box_top  # the box did not move
    expect(page.locator("#results-status")).to_have_text("4 papers for “samp”")
    first_url = page.url

    # More words: the results and counts change again.
    page.keyboard.type("ling diffu", delay=40)
    expect(heading).to_have_text("2 papers for “sampling diffu”")
    expect(oral).to_have_text("1")
    page.wait_for_url(re.compile(r"[?&]q=sampling(\+|%20)diffu(&|$)"))
    assert sorted(page.locator(".paper-title").all_inner_texts()) == [
        "Diffusion sampling with few steps",
        "Fast sampling for diffusion models",
    ]
    assert page.evaluate("document.activeElement.id") == "q"
    assert len(page_loads) == loads_before  # all of it in place, no page load

    # Back: the previous search, its results, counts and text in the box.
    page.go_back()
    page.wait_for_url(first_url)
    expect(heading).to_have_text("4 papers for “samp”")
    expect(oral).to_have_text("2")
    expect(box).to_have_value("samp")

    # Back again: the page as first loaded; forward: the typed search once more.
    page.go_back()
    page.wait_for_url(f"{live_server.url}/")
    expect(heading).to_have_text(f"{library} papers")
    expect(box).to_have_value("")
    page.go_forward()
    page.wait_for_url(first_url)
    expect(heading).to_have_text("4 papers for “samp”")
    expect(box).to_have_value("samp")

    assert len(restores) == (3 if history == "server" else 0)
    assert console.problems == []


def test_facet_tick_after_typing_is_one_request_keeping_the_search(page, live_server, library):
    from playwright.sync_api import expect

    console = ConsoleWatch().attach(page)
    heading = page.get_by_role("heading", level=1)
    page.goto(f"{live_server.url}/")
    page.get_by_role("searchbox", name="Search papers").press_sequentially("diffu", delay=40)
    expect(heading).to_have_text("3 papers for “diffu”")

    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.locator("#facet-track").get_by_label("Poster").check()
    page.wait_for_url(re.compile(r"[?&]track=poster(&|$)"))
    expect(heading).to_have_text("2 papers for “diffu”")
    assert len([url for url in requests if "track=poster" in url]) == 1
    assert "typing=1" in page.url  # the search still reads as typed

    # Enter: the same papers (issue 27); "diffu" is no word of any paper, so it is read as
    # the beginning of one, as it was while typing.
    page.get_by_role("searchbox", name="Search papers").press("Enter")
    page.wait_for_url(lambda url: "typing=1" not in url)
    expect(heading).to_have_text("2 papers for “diffu”")
    assert "typing=1" not in page.url
    assert console.problems == []


def test_without_javascript_the_form_submits_as_a_page(browser, live_server, library):
    from playwright.sync_api import expect

    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/")
    page.get_by_role("searchbox", name="Search papers").fill("sampling")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url(re.compile(r"[?&]q=sampling(&|$)"))
    expect(page.get_by_role("heading", level=1)).to_have_text("4 papers for “sampling”")
    assert "typing" not in page.url
    context.close()


def test_the_address_after_a_search_holds_only_the_search(page, live_server, library):
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/")
    box = page.get_by_role("searchbox", name="Search papers")
    box.fill("sampling")
    box.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_have_text("4 papers for “sampling”")
    # Not the form's request: no empty find boxes, no sort_for, no stale sort.
    page.wait_for_url(f"{live_server.url}/?q=sampling")
    page.select_option("#sort", "title")
    page.wait_for_url(f"{live_server.url}/?q=sampling&sort=title")
    # The address reloaded shows the same page.
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("4 papers for “sampling”")
    expect(page.locator("#sort")).to_have_value("title")


def test_enter_right_after_typing_asks_once(page, live_server, library):
    """Enter pressed before the typing pause is over sends one search, not two."""
    from playwright.sync_api import expect

    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}/")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "q=" in r.url else None)
    box = page.get_by_role("searchbox", name="Search papers")
    box.fill("sampling")
    box.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_have_text("4 papers for “sampling”")
    page.wait_for_timeout(600)  # past the typing pause: a second request would have gone
    assert len(requests) == 1, requests
    # Positive control: typing more asks again.
    box.press_sequentially(" diffusion", delay=20)
    expect(page.get_by_role("heading", level=1)).to_contain_text("sampling diffusion")
    assert len(requests) == 2, requests
    assert console.problems == []


def test_enter_while_the_typed_search_is_on_its_way_shows_the_entered_one(
    page, live_server, library
):
    """The typed request is held back by the test until Enter has been pressed: Enter's
    request replaces it, its late answer is never shown, and the abort htmx reports is not
    a problem in the console (CI once failed on it)."""
    from playwright.sync_api import expect

    console = ConsoleWatch().attach(page)
    held = []
    page.route(re.compile(r"typing=1"), lambda route: held.append(route))  # held, unanswered
    page.goto(f"{live_server.url}/")
    box = page.get_by_role("searchbox", name="Search papers")
    box.press_sequentially("diffusion", delay=20)
    page.wait_for_timeout(400)
    assert len(held) == 1  # the typed search was sent and is waiting
    box.press("Enter")
    page.wait_for_url(re.compile(r"[?&]q=diffusion(&|$)"))
    expect(page.get_by_role("heading", level=1)).to_have_text("3 papers for “diffusion”")
    held[0].fulfill(status=200, body="<div id='browse-results'>stale</div>")
    page.wait_for_timeout(200)
    expect(page.get_by_role("heading", level=1)).to_have_text("3 papers for “diffusion”")
    assert console.problems == []
    # Positive control: a request that fails outright is still reported.
    page.route(re.compile(r"q=graphs"), lambda route: route.abort("connectionrefused"))
    box.fill("graphs")
    box.press("Enter")
    page.wait_for_timeout(500)
    assert any("htmx:sendError" in problem for problem in console.problems), console.problems
