"""A reading group in Chromium: three sessions presented in turn, a swap, RSVPs, and notes
that appear in the paper's discussion."""

from __future__ import annotations

import pytest

from tests.browser.journey_helpers import log_in
from tests.factories import make_paper, make_user
from tests.group_helpers import make_group

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reading_group_rotates_presenters_and_posts_its_notes(page, live_server):
    ann, bea, cal = make_user("ann"), make_user("bea"), make_user("cal")
    group = make_group([ann, bea, cal])
    paper = make_paper("Attention is all you need")
    log_in(page, live_server, "ann")
    page.goto(f"{live_server.url}{group.get_absolute_url()}")
    for day in ("2031-03-06", "2031-03-13", "2031-03-20"):
        page.goto(f"{live_server.url}{group.get_absolute_url()}")
        page.click("summary:has-text('Schedule a session')")
        page.fill("input[name=starts_at]", f"{day}T16:00")
        page.fill("input[name=papers]", str(paper.pk))
        page.click("button:has-text('Schedule session')")
        page.wait_for_url("**/groups/sessions/*/")
    page.goto(f"{live_server.url}{group.get_absolute_url()}")
    presenters = page.locator(".sessions .presenter").all_inner_texts()
    assert presenters == ["ann", "bea", "cal"]
    assert page.locator(".presenter-queue li").all_inner_texts() == ["ann", "bea", "cal"]

    # The first session: Ann swaps with the second's presenter, answers, writes the notes.
    page.locator(".sessions a").first.click()
    page.select_option("select[name=other]", index=1)  # after "---------"
    page.click("button:has-text('Swap')")
    assert page.inner_text(".session-facts .presenter") == "bea"
    page.click(".rsvp button:has-text('Maybe')")
    assert "Maybe: ann" in page.inner_text(".rsvps")
    page.fill("textarea[name=notes]", "We **agreed**: $O(n^2)$ attention.")
    page.click("button:has-text('Save notes')")
    page.wait_for_selector(".session-notes strong:has-text('agreed')")
    page.wait_for_selector(".session-notes .katex")  # the math typeset

    # The paper's discussion shows the notes, linked back to the session.
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")
    comments = page.locator("#paper-comments")
    assert "Meeting notes" in comments.inner_text()
    assert comments.locator("strong:has-text('agreed')").count() == 1
    link = comments.locator('a:has-text("the session\'s page")')
    assert link.get_attribute("href").endswith(f"/groups/sessions/{group.sessions.first().pk}/")
