"""Highlight and share in three actions (issue 39, point 3; docs/highlights.md): in Chromium,
member A selects text in the reader (1), presses Highlight or the h key (2), types a note and
presses Enter (3): one lab highlight, since A's remembered visibility is lab. Member B sees it,
its quote's line break and hyphenation joined, with A's name on the paper page's panel. A makes
it private in one click in the reader, and B sees it no more."""

from __future__ import annotations

import pytest

from highlights.models import Highlight, HighlightPreference
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.browser.test_reader_highlights import open_reader
from tests.factories import make_paper, make_user
from tests.pdf_files import make_text_pdf
from tests.pdf_storing import store_test_pdf

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = [["An opening line.", "Models built on the trans-", "former read every word at once."]]
NOTE = "Why attention scales"


@pytest.fixture
def paper(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return store_test_pdf(make_paper("Highlight and share"), make_text_pdf(PAGES)).paper


def select_across(page, first: str, last: str) -> None:
    """Select from `first` in one line of page 1's text layer to the end of `last` in a later
    one, as dragging over them does."""
    page.evaluate(
        """([first, last]) => {
          const spans = [...document.querySelectorAll(
            ".reader-page[data-page-number='1'] .textLayer span"
          )];
          const from = spans.find((s) => s.textContent.includes(first)).firstChild;
          const to = spans.find((s) => s.textContent.includes(last)).firstChild;
          const range = document.createRange();
          range.setStart(from, from.data.indexOf(first));
          range.setEnd(to, to.data.indexOf(last) + last.length);
          getSelection().removeAllRanges();
          getSelection().addRange(range);
        }""",
        [first, last],
    )


@pytest.mark.parametrize("press", ["button", "h key"])
def test_select_highlight_and_a_note_share_with_the_lab_in_three_actions(
    browser, page, live_server, paper, press
):
    mira = make_user("mira")
    make_user("theo")
    HighlightPreference.objects.create(user=mira, default_visibility="lab")  # her last choice
    console = ConsoleWatch().attach(page)
    log_in(page, live_server, "mira")
    open_reader(page, live_server, paper)

    actions = 0
    select_across(page, "the trans-", "former read")
    actions += 1
    if press == "button":
        page.get_by_role("button", name="Highlight", exact=True).click()
    else:
        page.get_by_role("button", name="Highlight", exact=True).wait_for()
        page.keyboard.press("h")
    actions += 1
    page.get_by_role("dialog").get_by_label("Note (optional)").wait_for()
    with page.expect_response(lambda r: r.request.method == "POST" and r.status == 201):
        page.keyboard.type(NOTE)  # the note field has the focus
        page.keyboard.press("Enter")
    actions += 1

    assert actions <= 3
    saved = Highlight.objects.get()
    assert (saved.visibility, saved.note, saved.author) == ("lab", NOTE, mira)
    assert saved.exact.startswith("the trans-") and saved.exact.endswith("former read")
    assert saved.comment is not None  # the lab's thread
    page.get_by_role("dialog").wait_for(state="hidden")
    assert console.problems == []

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    other = context.new_page()
    log_in(other, live_server, "theo")
    other.goto(f"{live_server.url}{paper.get_absolute_url()}")
    panel = other.locator("#paper-highlights")
    assert "mira" in panel.inner_text()
    assert "“the transformer read”" in panel.inner_text()
    assert NOTE in panel.inner_text()
    context.close()


def test_one_click_in_the_reader_makes_a_lab_highlight_private(browser, page, live_server, paper):
    mira = make_user("mira")
    make_user("theo")
    HighlightPreference.objects.create(user=mira, default_visibility="lab")
    log_in(page, live_server, "mira")
    open_reader(page, live_server, paper)
    select_across(page, "An opening", "line.")
    page.get_by_role("button", name="Highlight", exact=True).click()
    with page.expect_response(lambda r: r.status == 201):
        page.keyboard.press("Enter")  # no note: Enter saves
    page.get_by_role("button", name="Contents").click()
    listed = page.locator("[data-highlight-list]")

    with page.expect_response(lambda r: "/edit/" in r.url and r.status == 200):
        listed.get_by_role("button", name="Make private").click()  # the one click

    assert Highlight.objects.get().visibility == "private"
    listed.get_by_role("button", name="Share with the lab").wait_for()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    other = context.new_page()
    log_in(other, live_server, "theo")
    other.goto(f"{live_server.url}{paper.get_absolute_url()}")
    assert "An opening line." not in other.locator("main").inner_text()
    context.close()
