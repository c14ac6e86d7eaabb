"""One-click capture in a real Chromium (issue 39, point 2): a member makes their one-click
bookmarklet on their capture page, then, on another site's paper page (a tiny local
http.server on another origin, carrying `<meta name="citation_doi">`), clicks it: the small
window it opens on our site adds the paper to the list they chose, and says so with an Undo.
The clicks from the foreign page to "added" are counted: one. A paper already here is added at
once; one not here goes through the queued fetch (Crossref replayed by respx, the worker run
once the window shows it waiting). Undo takes it off the list again."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
import respx

from annotations.models import ReadingList
from papers.models import Paper
from papers.sources import single
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.factories import make_paper, make_reading_list, make_user
from tests.link_lookup_helpers import CROSSREF, DOI, crossref_work, run_worker, use_test_services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PUBLISHER_PAGE = """<!doctype html><html><head><title>A publisher's page</title>
<meta name="citation_title" content="Optuna: A Next-generation Hyperparameter Optimization">
<meta name="citation_doi" content="{doi}">
</head><body><h1>An article</h1><p>Published somewhere.</p></body></html>"""


@pytest.fixture
def publisher():
    """Another site (another origin than the live server) serving a paper's page that names
    its DOI in a meta tag, as publishers' pages do. Its URL; stopped when the test ends."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = PUBLISHER_PAGE.format(doi=DOI).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/article/7"
    server.shutdown()
    server.server_close()


class Clicks:
    """The member's clicks, counted."""

    def __init__(self):
        self.count = 0

    def click(self, locator) -> None:
        self.count += 1
        locator.click()


def make_one_click_bookmarklet(page, live_server, reading_list: ReadingList) -> str:
    """Once, on the member's capture page: choose the list, make the bookmarklet; its href (what
    the member drags to the bookmarks bar)."""
    page.goto(f"{live_server.url}/capture/settings/")
    page.get_by_label("Captured papers go to").select_option(str(reading_list.pk))
    page.get_by_role("button", name="Save").click()
    page.get_by_role("button", name="Make a one-click bookmarklet").click()
    href = page.locator("[data-bookmarklet=one-click]").get_attribute("href")
    assert href and href.startswith("javascript:")
    return href


def put_on_bookmarks_bar(page, href: str):
    """The bookmarks bar, in the foreign page: a link with the bookmarklet's href, which runs
    its code in that page when clicked, as a bookmarklet does."""
    page.evaluate(
        """href => {
            const bar = document.createElement("a");
            bar.id = "bookmarks-bar"; bar.textContent = "+ Capture paper"; bar.href = href;
            document.body.prepend(bar);
        }""",
        href,
    )
    return page.locator("#bookmarks-bar")


@pytest.fixture
def member(page, live_server, settings, monkeypatch):
    use_test_services(settings)
    monkeypatch.setattr(single, "LOOKUP_BACKOFF", 0.0)
    dana = make_user("dana")
    make_reading_list(dana, "Reading group")
    queue = make_reading_list(dana, "Queue", papers=[make_paper("Already listed")])
    log_in(page, live_server, "dana")
    return queue


def capture_from(page, publisher, href: str, clicks: Clicks):
    """On the publisher's page, one click on the bookmarklet; the window it opens."""
    page.goto(publisher)
    button = put_on_bookmarks_bar(page, href)
    with page.context.expect_page() as opened:
        clicks.click(button)
    window = opened.value
    window.wait_for_load_state()
    return window


def test_one_click_adds_a_paper_here_to_the_chosen_list_and_undo_takes_it_off(
    page, live_server, publisher, member
):
    from playwright.sync_api import expect

    paper = make_paper("Optuna, known here", doi=DOI)
    href = make_one_click_bookmarklet(page, live_server, member)
    clicks = Clicks()

    window = capture_from(page, publisher, href, clicks)
    console = ConsoleWatch().attach(window)

    expect(window.locator("#capture-result")).to_contain_text(
        "Added “Optuna, known here” to “Queue”."
    )
    assert clicks.count == 1
    assert window.url.startswith(f"{live_server.url}/capture/")
    assert "#key=" not in window.url
    assert [item.paper for item in member.items.order_by("position")][-1] == paper
    assert not ReadingList.objects.get(name="Reading group").items.exists()

    window.get_by_role("button", name="Undo").click()
    expect(window.locator("#capture-result")).to_contain_text("Undone:")
    assert [item.paper.title for item in member.items.all()] == ["Already listed"]
    assert Paper.objects.filter(pk=paper.pk).exists()
    assert console.problems == []


def test_one_click_fetches_a_paper_not_here_through_the_queue(page, live_server, publisher, member):
    from playwright.sync_api import expect

    href = make_one_click_bookmarklet(page, live_server, member)
    clicks = Clicks()

    window = capture_from(page, publisher, href, clicks)
    expect(window.locator("#capture-result")).to_contain_text("Fetching it from Crossref")
    with respx.mock() as outside:
        outside.get(f"{CROSSREF}/works/{DOI}").mock(
            return_value=httpx.Response(200, json=crossref_work())
        )
        run_worker()

    expect(window.locator("#capture-result")).to_contain_text(
        "Added “Optuna: A Next-generation Hyperparameter Optimization Framework” to “Queue”."
    )
    assert clicks.count == 1
    paper = Paper.objects.get(doi=DOI)
    assert [item.paper for item in member.items.order_by("position")][-1] == paper

    window.get_by_role("button", name="Undo").click()
    expect(window.locator("#capture-result")).to_contain_text("Undone:")
    assert [item.paper.title for item in member.items.all()] == ["Already listed"]


def test_the_ask_first_bookmarklet_adds_on_the_second_click(page, live_server, publisher, member):
    from playwright.sync_api import expect

    paper = make_paper("Optuna, known here", doi=DOI)
    page.goto(f"{live_server.url}/capture/settings/")
    href = page.locator("[data-bookmarklet=ask-first]").get_attribute("href")
    clicks = Clicks()

    window = capture_from(page, publisher, href, clicks)
    expect(window.get_by_role("heading", level=1)).to_have_text("Capture a paper")
    assert not member.items.filter(paper=paper).exists()  # the page alone adds nothing
    clicks.click(window.get_by_role("button", name="Add"))

    expect(window.locator("#capture-result")).to_contain_text("Added “Optuna, known here”")
    assert clicks.count == 2
    assert member.items.filter(paper=paper).exists()
