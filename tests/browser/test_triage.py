"""Triage from the results in a real browser, under the real CSP: each result's controls swap
its block in place, the keys walk and act on the results, several results are saved at once,
and nothing reaches the console."""

from __future__ import annotations

import pytest

from annotations.models import ReadingListItem, ReadingStatus
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.factories import make_paper, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _watch_console(page) -> list[str]:
    """Errors, CSP violations and warnings in the console (journey_helpers.ConsoleWatch)."""
    return ConsoleWatch(warnings=True).attach(page).problems


def _saved(user) -> dict[str, str]:
    return dict(
        ReadingListItem.objects.filter(
            reading_list__owner=user, reading_list__is_default=True
        ).values_list("paper__title", "status")
    )


def _settled(page) -> None:
    """Wait until htmx has swapped and settled: a new block's buttons are wired up only then
    (pressed before, they would post the plain form, which works but leaves the page)."""
    from playwright.sync_api import expect

    busy = ".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added"
    expect(page.locator(busy)).to_have_count(0)


@pytest.fixture
def results(db):
    # Titles sort as listed: the list below is sorted by title.
    return [make_paper(f"Graph study {letter}", authors=["Ada"]) for letter in "ABCD"]


def test_save_and_status_in_place(page, live_server, results, screenshot):
    member = make_user("erin")
    problems = _watch_console(page)
    log_in(page, live_server, "erin")
    url = f"{live_server.url}/?q=graph&sort=title"
    page.goto(url)
    page.evaluate("window.__noReload = true")  # a page load would forget it

    block = f"#triage-{results[1].pk}"
    page.click(f"{block} [data-triage-save]")
    page.wait_for_selector(f"{block} .triage-saved:has-text('Saved ✓')")
    _settled(page)
    assert "Saved to “Saved”" in page.inner_text(f"{block} [role=status]")
    # Status, lists and the lab tag wait behind the result's "More" (issue 28: quiet results).
    assert page.locator(f"{block} button:visible, {block} summary:visible").count() == 2
    page.click(f"{block} .triage-more summary")
    page.select_option(f"{block} [data-triage-status]", "read")
    page.click(f"{block} [data-triage-status-set]")
    page.wait_for_selector(f"{block} [role=status]:has-text('Read (in “Saved”)')")
    _settled(page)

    assert page.evaluate("window.__noReload") is True
    assert page.url == url
    screenshot("triage-in-place")
    page.reload()
    assert page.is_visible(f"{block} .triage-saved")
    assert page.eval_on_selector(f"{block} [data-triage-status]", "menu => menu.value") == "read"
    assert _saved(member) == {"Graph study B": ReadingStatus.READ}
    assert problems == []


def test_a_result_shows_at_most_three_controls(page, live_server, results):
    """Issue 28, point 2: selection box, Save and More; the rest waits behind More."""
    make_user("iris")
    log_in(page, live_server, "iris")
    page.goto(f"{live_server.url}/?q=graph&sort=title")
    counts = page.evaluate(
        """[...document.querySelectorAll('.paper-list > .paper-item .triage')].map(block =>
             [...block.querySelectorAll('button, input:not([type=hidden]), select, summary')]
               .filter(e => e.checkVisibility({visibilityProperty: true})).length)"""
    )
    assert counts == [3, 3, 3, 3]


def test_more_opens_and_closes_with_the_keyboard(page, live_server, results):
    from playwright.sync_api import expect

    make_user("jo")
    problems = _watch_console(page)
    log_in(page, live_server, "jo")
    page.goto(f"{live_server.url}/?q=graph&sort=title")
    block = page.locator(f"#triage-{results[0].pk}")
    summary = block.locator(".triage-more summary")
    summary.focus()
    page.keyboard.press("Enter")
    expect(block.locator("[data-triage-status]")).to_be_visible()
    page.keyboard.press("Tab")  # into the menu: the status menu comes first
    expect(block.locator("[data-triage-status]")).to_be_focused()
    page.keyboard.press("Escape")
    expect(block.locator("[data-triage-status]")).to_be_hidden()
    expect(summary).to_be_focused()
    # One open at a time.
    summary.click()
    page.locator(f"#triage-{results[1].pk} .triage-more summary").click()
    expect(block.locator("[data-triage-status]")).to_be_hidden()
    assert problems == []


def test_keyboard_walk(page, live_server, results):
    member = make_user("finn")
    problems = _watch_console(page)
    log_in(page, live_server, "finn")
    page.goto(f"{live_server.url}/?q=graph&sort=title")
    page.click("h1")  # focus on the page, not in the search box

    def current() -> str:
        return page.inner_text(".paper-item[aria-current=true] .paper-title")

    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("k")
    assert current() == "Graph study A"
    page.keyboard.press("j")
    assert current() == "Graph study B"
    assert (
        page.eval_on_selector(
            ".paper-item.is-current", "item => getComputedStyle(item).outlineStyle"
        )
        == "solid"
    )
    page.keyboard.press("x")
    assert page.is_checked(f"#triage-{results[1].pk} [data-triage-check]")
    page.keyboard.press("s")
    page.wait_for_selector(f"#triage-{results[1].pk} .triage-saved")
    _settled(page)
    page.keyboard.press("2")
    page.wait_for_selector(f"#triage-{results[1].pk} [role=status]:has-text('Reading')")
    _settled(page)
    assert _saved(member) == {"Graph study B": ReadingStatus.READING}

    page.keyboard.press("?")
    assert page.is_visible("#triage-help")
    page.keyboard.press("Escape")
    assert not page.is_visible("#triage-help")

    page.keyboard.press("t")
    assert page.evaluate("document.activeElement.id") == f"p{results[1].pk}-name"
    page.keyboard.type("js")  # typed into the box: not read as keys
    assert current() == "Graph study B"
    page.keyboard.press("Escape")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.evaluate("document.activeElement.blur()")

    page.keyboard.press("o")
    page.wait_for_url(f"**{results[1].get_absolute_url()}*")
    assert problems == []


def test_select_two_and_save_both(page, live_server, results):
    member = make_user("gail")
    problems = _watch_console(page)
    log_in(page, live_server, "gail")
    page.goto(f"{live_server.url}/?q=graph&sort=title")
    page.evaluate("window.__noReload = true")

    page.check(f"#triage-{results[0].pk} [data-triage-check]")
    page.check(f"#triage-{results[2].pk} [data-triage-check]")
    page.click("button[form=bulk-form][value=save]")
    page.wait_for_selector("#bulk-status:has-text('Saved 2 papers to “Saved”.')")
    page.wait_for_selector(f"#triage-{results[0].pk} .triage-saved")
    page.wait_for_selector(f"#triage-{results[2].pk} .triage-saved")
    assert not page.is_visible(f"#triage-{results[1].pk} .triage-saved")

    assert page.evaluate("window.__noReload") is True
    assert _saved(member) == {
        "Graph study A": ReadingStatus.TO_READ,
        "Graph study C": ReadingStatus.TO_READ,
    }
    assert problems == []


def test_triage_without_javascript(browser, live_server, results):
    member = make_user("hugo")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        log_in(page, live_server, "hugo")
        url = f"{live_server.url}/?q=graph&sort=title"
        page.goto(url)
        page.click(f"#triage-{results[3].pk} [data-triage-save]")
        page.wait_for_selector(".messages:has-text('Saved to “Saved”')")
        assert page.url == url
        page.check("[data-triage-select-all]")
        page.select_option("#bulk-status-choice", "skipped")
        page.click("button[form=bulk-form][value=status]")
        page.wait_for_selector(".messages:has-text('Marked 4 papers “Skipped”')")
        assert page.url == url
    finally:
        context.close()
    assert set(_saved(member).values()) == {ReadingStatus.SKIPPED}
    assert len(_saved(member)) == 4
