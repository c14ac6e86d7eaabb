"""Discussion that reaches people, in Chromium under the real CSP: a mention posted by one
member shows up in another's header and notifications, and nobody else's."""

from __future__ import annotations

import re

import pytest

from annotations.models import Comment, Notification
from tests.browser.journey_helpers import ConsoleWatch
from tests.factories import PASSWORD, make_comment, make_paper, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _member_page(browser, live_server, username: str):
    """A browser context of its own (cookies apart), logged in as `username`."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    watch = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return context, page, watch


@pytest.fixture
def screenshot_dir():
    from tests.browser.conftest import SCREENSHOT_DIR

    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    return SCREENSHOT_DIR


def _nav_notifications(page):
    # Among the header's links, inline at this desktop width.
    main = page.get_by_role("navigation", name="Main", exact=True)
    return main.get_by_role("link", name=re.compile(r"^Notifications"))


def test_a_mention_reaches_only_the_member_mentioned(browser, live_server, screenshot_dir):
    make_user("ann")
    make_user("bea")
    make_user("cal")
    paper = make_paper("Threads in the browser", authors=["Ada Lovelace"])
    paper_url = f"{live_server.url}{paper.get_absolute_url()}"
    contexts = []
    try:
        # Ann posts a comment mentioning @bea, swapped in place by htmx.
        context, ann, ann_watch = _member_page(browser, live_server, "ann")
        contexts.append(context)
        ann.goto(paper_url)
        ann.fill("#paper-comments > form textarea[name=body]", "Does this hold up, @bea?")
        ann.click("#paper-comments button:has-text('Post comment')")
        ann.wait_for_selector("#paper-comments .flash:has-text('Comment posted.')")
        assert ann.inner_html("#paper-comments .mention") == "@bea"
        # The message goes with the next thing Ann does: it does not outlive it.
        ann.fill("#paper-notes textarea[name=body]", "starting a note")
        assert ann.locator("#paper-comments .flash").count() == 0
        comment = Comment.objects.get()

        # Bea sees one unread notification in her header and on her page.
        context, bea, bea_watch = _member_page(browser, live_server, "bea")
        contexts.append(context)
        link = _nav_notifications(bea)
        assert link.get_attribute("aria-label") == "Notifications, 1 unread"
        assert link.locator(".badge").inner_text() == "1 unread"  # a labelled count
        link.click()
        bea.wait_for_url(f"{live_server.url}/notifications/")
        item = bea.locator(".notification.unread")
        assert "ann mentioned you on" in " ".join(item.inner_text().split())
        assert "Does this hold up, @bea?" in item.inner_text()
        # Following it marks it read and lands on the comment.
        item.locator("button:has-text('Threads in the browser')").click()
        bea.wait_for_url(f"{paper_url}#comment-{comment.pk}")
        assert _nav_notifications(bea).get_attribute("aria-label") == "Notifications"
        assert Notification.objects.get().read_at is not None

        # Bea replies in place; the reply sits under Ann's comment and tells Ann.
        thread = bea.locator("#paper-comments li.thread").first
        thread.locator("summary:has-text('Reply')").click()
        thread.locator("textarea[name=body]").fill("It does, see table 2.")
        thread.locator("button:has-text('Post reply')").click()
        bea.wait_for_selector("#paper-comments .flash:has-text('Reply posted.')")
        assert "It does, see table 2." in bea.inner_text("#paper-comments .replies")
        assert Notification.objects.get(recipient__username="ann").kind == "reply"
        thread_shot = screenshot_dir / "discussion-thread.png"
        bea.locator("#paper-comments").screenshot(path=str(thread_shot))

        # Cal was mentioned by nobody and lists nothing: no count, no notifications.
        context, cal, cal_watch = _member_page(browser, live_server, "cal")
        contexts.append(context)
        assert _nav_notifications(cal).locator(".badge").count() == 0
        cal.goto(f"{live_server.url}/notifications/")
        assert "No notifications yet" in cal.inner_text("main")
        assert "Does this hold up" not in cal.content()
        ann.goto(f"{live_server.url}/notifications/")
        ann.screenshot(path=str(screenshot_dir / "discussion-notifications.png"))

        assert ann_watch.problems + bea_watch.problems + cal_watch.problems == []
    finally:
        for context in contexts:
            context.close()


def test_math_in_a_comment_is_typeset_where_notifications_and_activity_quote_it(
    browser, live_server
):
    from playwright.sync_api import expect

    make_user("ann")
    make_user("bea")
    paper = make_paper("Bridges", authors=["Ada Lovelace"])
    ann_context, ann, ann_watch = _member_page(browser, live_server, "ann")
    ann.goto(f"{live_server.url}{paper.get_absolute_url()}")
    ann.get_by_label("Comment:").fill(r"@bea see $\alpha_t$ in eq. 3")
    ann.get_by_role("button", name="Post comment").click()
    expect(ann.locator(".comment-body .katex")).to_have_count(1)  # as the thread shows it
    ann_context.close()

    bea_context, bea, bea_watch = _member_page(browser, live_server, "bea")
    _nav_notifications(bea).click()
    # The excerpt is the comment's text, its math typeset as in the thread, not "$\alpha_t$".
    excerpt = bea.locator(".notification .excerpt")
    expect(excerpt.locator(".katex")).to_have_count(1)
    expect(excerpt).not_to_contain_text("$")
    header = bea.get_by_role("navigation", name="Main", exact=True)
    header.locator(".member-menu summary").click()
    header.get_by_role("link", name="Recent activity").click()
    quote = bea.locator(".activity-comment q")
    expect(quote.locator(".katex")).to_have_count(1)
    expect(quote).not_to_contain_text("$")
    assert ann_watch.problems == [] and bea_watch.problems == []
    bea_context.close()


def test_a_draft_survives_a_reply_posted_or_refused_elsewhere_in_the_thread(browser, live_server):
    make_user("ann")
    bea = make_user("bea")
    paper = make_paper("Drafts in the browser", authors=["Ada Lovelace"])
    question = make_comment(bea, paper, "A question for the lab.")
    context, ann, watch = _member_page(browser, live_server, "ann")
    try:
        ann.goto(f"{live_server.url}{paper.get_absolute_url()}")
        main_box = ann.locator("#paper-comments > form textarea[name=body]")
        main_box.fill("A long comment I am still writing")
        thread = ann.locator(f"#comment-{question.pk}").locator("xpath=..")
        thread.locator("summary:has-text('Reply')").click()
        reply = thread.locator("form textarea[name=body]")
        # Refused (blank once trimmed): the section comes back with the error...
        reply.fill("   ")
        thread.locator("button:has-text('Post reply')").click()
        ann.wait_for_selector("#paper-comments .has-error")
        assert main_box.input_value() == "A long comment I am still writing"
        # ... and posted: the reply shows, the draft is still there, the reply box empty.
        thread = ann.locator(f"#comment-{question.pk}").locator("xpath=..")
        thread.locator("form textarea[name=body]").fill("Here is my answer.")
        thread.locator("button:has-text('Post reply')").click()
        ann.wait_for_selector("#paper-comments .flash:has-text('Reply posted.')")
        assert main_box.input_value() == "A long comment I am still writing"
        assert Comment.objects.filter(parent=question, body="Here is my answer.").exists()
        reply = ann.locator(f"#comment-{question.pk}").locator("xpath=..").locator("textarea")
        assert reply.input_value() == ""
        # The draft's own form, once posted, empties as before.
        ann.click("#paper-comments button:has-text('Post comment')")
        ann.wait_for_selector("#paper-comments .flash:has-text('Comment posted.')")
        assert main_box.input_value() == ""
        assert watch.problems == []
    finally:
        context.close()
