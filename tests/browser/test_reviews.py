"""Reviews on a paper's page in Chromium: folded until opened, their math typeset by the page's
KaTeX (static/js/math.js) under the site's CSP, with nothing logged to the console."""

from __future__ import annotations

import json

import pytest

from papers.importing.pipeline import import_paths
from papers.models import Paper
from tests.browser.journey_helpers import ConsoleWatch
from tests.test_review_texts import FORUM

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_review_opens_with_its_math_typeset(page, live_server, tmp_path):
    from playwright.sync_api import expect

    path = tmp_path / FORUM.name
    path.write_text(json.dumps(json.loads(FORUM.read_text(encoding="utf-8"))), encoding="utf-8")
    import_paths([str(path)])
    paper = Paper.objects.get(forum_id="F0rum_42")
    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")

    reviews = page.locator("section.reviews details.review")
    expect(reviews).to_have_count(5)
    first_review = page.locator("details.review-review").first
    text = first_review.locator(".review-body")
    expect(text).to_be_hidden()  # folded
    first_review.locator("summary").click()
    expect(text).to_be_visible()
    expect(text.locator(".katex").first).to_be_visible()
    expect(text).to_contain_text("A tight bound.")
    page.screenshot(path=str(tmp_path / "reviews.png"), full_page=True)
    assert console.problems == []
