"""The keyword facet's find box in a real Chromium: typing asks the server for the matching
keywords (beyond the top ones shown), ticking one filters the results; no console or CSP error."""

from __future__ import annotations

import pytest

from papers.models import TagKind
from tests.browser.journey_helpers import ConsoleWatch
from tests.factories import make_paper

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def catalogue(db):
    for n in range(6):
        make_paper(f"Common {n}", tags=[("ICLR 2024", TagKind.VENUE), ("common", TagKind.KEYWORD)])
    make_paper("The rare one", tags=[("ICLR 2024", TagKind.VENUE), ("rare gem", TagKind.KEYWORD)])


def test_typing_in_the_keyword_box_finds_a_keyword_and_ticking_it_filters(
    page, live_server, catalogue, monkeypatch
):
    from playwright.sync_api import expect

    from papers.search import counting

    monkeypatch.setattr(counting, "TOP_KEYWORDS", 1)  # "rare gem" is not among the top shown
    console = ConsoleWatch().attach(page)
    keywords = page.locator("#facet-keyword .facet-value")
    page.goto(f"{live_server.url}/")
    expect(keywords).to_have_count(1)
    expect(keywords.first).to_contain_text("common")

    page.get_by_role("searchbox", name="Find a keyword").press_sequentially("gem", delay=50)
    expect(keywords).to_have_count(1)
    expect(keywords.first).to_contain_text("rare gem")
    keywords.first.locator("input").check()
    expect(page.get_by_role("heading", level=1)).to_have_text("1 paper")
    expect(page.locator(".paper-list")).to_contain_text("The rare one")
    assert "keyword=rare-gem" in page.url
    assert console.problems == []
