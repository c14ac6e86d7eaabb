"""The paper page's annotation panel in a real browser, under the real CSP.

With JavaScript, htmx swaps each section in place (no page load) and nothing trips the
Content-Security-Policy; without JavaScript the same forms post and redirect with a message.
"""

from __future__ import annotations

import pytest

from annotations.models import Comment, Note, ReadingList
from papers.models import PaperTag
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.factories import make_paper, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_panel_actions_swap_in_place_with_htmx(page, live_server, screenshot):
    make_user("carol")
    paper = make_paper("Browser paper", authors=["Ada Lovelace"])
    problems = ConsoleWatch().attach(page).problems
    log_in(page, live_server, "carol")
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")
    # A full page load would replace this marker; an htmx swap leaves it in place.
    page.evaluate("window.__noReload = true")

    page.fill("#paper-notes textarea[name=body]", "Check **appendix B**")
    page.click("#paper-notes button:has-text('Save note')")
    page.wait_for_selector("#paper-notes .flash:has-text('Note saved.')")
    assert page.inner_html("#paper-notes strong") == "appendix B"
    page.click("#paper-notes .note a:has-text('Edit')")
    page.fill("#paper-notes .note textarea[name=body]", "Check **appendix C**")
    page.click("#paper-notes .note button:has-text('Save note')")
    page.wait_for_selector("#paper-notes .note .flash:has-text('Note updated.')")
    assert page.inner_html("#paper-notes .note strong") == "appendix C"

    page.fill("#paper-tags input[name=name]", "  Browser Tag ")
    page.click("#paper-tags button:has-text('Add tag')")
    page.wait_for_selector("#paper-tags .flash:has-text('Tagged')")

    page.fill("#paper-lists input[name=new_list_name]", "From the browser")
    page.click("#paper-lists button:has-text('Add')")
    page.wait_for_selector("#paper-lists .in-list")

    page.fill("#paper-comments textarea[name=body]", "<b>not bold</b>")
    page.click("#paper-comments button:has-text('Post comment')")
    page.wait_for_selector("#paper-comments .flash:has-text('Comment posted.')")
    assert "<b>not bold</b>" in page.inner_text("#paper-comments .comment-body")

    assert page.evaluate("window.__noReload") is True
    screenshot("annotations-panel-htmx")
    assert Note.objects.get().body == "Check **appendix C**"
    assert PaperTag.objects.get(paper=paper).tag.name == "Browser Tag"
    assert ReadingList.objects.get().items.get().paper == paper
    assert Comment.objects.get().body == "<b>not bold</b>"
    assert problems == []


def test_save_panel_follows_the_lists_section_without_a_reload(page, live_server):
    make_user("fay")
    paper = make_paper("Listed paper")
    problems = ConsoleWatch().attach(page).problems
    log_in(page, live_server, "fay")
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")
    page.evaluate("window.__noReload = true")
    save_panel = f"#paper-triage #triage-{paper.pk}"

    page.fill("#paper-lists input[name=new_list_name]", "Group reading")
    page.click("#paper-lists button:has-text('Add')")
    page.wait_for_selector(f"{save_panel} .triage-in:has-text('In Group reading')")
    page.click("#paper-lists button:has-text('Remove')")
    page.wait_for_selector("#paper-lists .flash:has-text('Removed')")
    assert page.locator(f"{save_panel} .triage-in").count() == 0

    assert page.evaluate("window.__noReload") is True
    assert problems == []


def test_forms_work_without_javascript(browser, live_server):
    make_user("dave")
    paper = make_paper("No-JS paper")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        log_in(page, live_server, "dave")
        page.goto(f"{live_server.url}{paper.get_absolute_url()}")
        page.fill("#paper-notes textarea[name=body]", "plain form post")
        page.click("#paper-notes button:has-text('Save note')")
        page.wait_for_selector(".messages :text('Note saved.')")
        assert "#paper-notes" in page.url
        assert "plain form post" in page.inner_text("#paper-notes")
    finally:
        context.close()


def test_list_page_reorders_and_sets_status_in_place(page, live_server, screenshot):
    from tests.factories import make_comment, make_note, make_reading_list

    owner = make_user("erin")
    papers = [make_paper(title, authors=["Ada Lovelace"]) for title in ["One", "Two", "Three"]]
    reading_list = make_reading_list(owner, "Ordered", papers=papers)
    make_note(owner, papers[0], "a *note* to find")
    make_comment(owner, papers[1], "a public remark")
    log_in(page, live_server, "erin")
    page.goto(f"{live_server.url}{reading_list.get_absolute_url()}")
    page.evaluate("window.__noReload = true")

    page.click("#list-items li:first-child button[value='down']")
    page.wait_for_selector("#list-items .flash:has-text('Moved')")
    titles = page.locator("#list-items .paper-title").all_inner_texts()
    assert titles == ["Two", "One", "Three"]

    first = page.locator("#list-items li").first
    first.locator("select[name=status]").select_option("reading")
    first.locator("select[name=priority]").select_option("1")
    first.locator("button:has-text('Set status')").click()
    page.wait_for_selector("#list-items .flash:has-text('Updated')")
    assert page.evaluate("window.__noReload") is True
    item = reading_list.items.get(paper=papers[1])
    assert (item.position, item.status, item.priority) == (0, "reading", 1)
    screenshot("annotations-list-detail")

    page.goto(f"{live_server.url}/notes/?q=find")
    assert "note" in page.inner_text(".note-body")
    screenshot("annotations-my-notes")
    page.goto(f"{live_server.url}/activity/")
    assert "a public remark" in page.inner_text("main")
    screenshot("annotations-activity")


def test_a_message_stays_when_a_section_loads_itself_into_view(page, live_server):
    # The Cite section loads when scrolled into view; that request is not the member acting,
    # and it cleared "Comment posted." whenever focusing the message revealed it.
    paper = make_paper("Paper with a thread", abstract="A long abstract. " * 400)
    make_user("dora")
    log_in(page, live_server, "dora")
    page.set_viewport_size({"width": 1280, "height": 500})  # the Cite section below the fold
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")
    assert page.locator("[hx-trigger~='revealed']").count() == 1  # not loaded yet
    page.fill("#paper-comments textarea[name=body]", "A first comment")
    page.click("#paper-comments button:has-text('Post comment')")
    page.wait_for_selector("#paper-comments .flash:has-text('Comment posted.')")
    with page.expect_response(lambda response: "/cite/" in response.url):
        page.locator("[hx-trigger~='revealed']").scroll_into_view_if_needed()
    page.wait_for_timeout(300)  # the swap settles
    assert page.locator("#paper-comments .flash:has-text('Comment posted.')").count() == 1


def test_a_note_sent_after_the_session_ended_stays_typed_with_the_reason(page, live_server):
    from playwright.sync_api import expect

    make_user("carol")
    paper = make_paper("Browser paper", authors=["Ada Lovelace"])
    problems = ConsoleWatch().attach(page).problems
    log_in(page, live_server, "carol")
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")
    # Logged out elsewhere (another tab, or the session expired).
    page.context.clear_cookies(name="sessionid")
    page.fill("#paper-notes textarea[name=body]", "Ten minutes of typing")
    page.click("#paper-notes button:has-text('Save note')")
    expect(page.locator("#paper-notes [role=alert]")).to_contain_text("no longer logged in")
    # The login page was not swapped into the section, and the text is where it was.
    expect(page.locator("#paper-notes input[name=password]")).to_have_count(0)
    assert page.input_value("#paper-notes textarea[name=body]") == "Ten minutes of typing"
    assert not Note.objects.exists()
    # The browser logs the 401 itself; nothing else went wrong.
    assert [p for p in problems if "401" not in p] == []
