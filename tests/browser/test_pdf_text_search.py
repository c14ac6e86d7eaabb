"""A phrase only a stored PDF holds finds its paper from the list page's search box in a real
Chromium, under the real CSP, with a snippet that says which page of the PDF it is on; the
"Has PDF" facet narrows the list. The server side is tests/test_pdf_text_search.py."""

from __future__ import annotations

import hashlib
from io import BytesIO

import pytest

from pdfs.storing import store_pdf
from pdfs.texts import extract_paper_text
from tests.browser.journey_helpers import ConsoleWatch
from tests.factories import make_paper
from tests.pdf_files import make_positioned_pdf

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_phrase_in_a_pdf_finds_its_paper_with_the_page(
    page, live_server, settings, tmp_path, screenshot
):
    from playwright.sync_api import expect

    settings.MEDIA_ROOT = tmp_path / "media"
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    paper = make_paper("Sparse sensing", abstract="We sense sparsely.")
    make_paper("Dense sensing", abstract="We sense densely.")
    content = make_positioned_pdf(
        [[(72, 700, "Introduction.")], [(72, 700, "The ﬁnal ablation uses heliotrope filters.")]]
    )
    store_pdf(
        paper_id=paper.pk,
        file=BytesIO(content),
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
    )
    extract_paper_text(paper.pk)  # what the queued task does in the worker
    console = ConsoleWatch().attach(page)

    page.goto(f"{live_server.url}/")
    page.get_by_role("searchbox", name="Search papers").fill('"final ablation" heliotrope')
    page.get_by_role("searchbox", name="Search papers").press("Enter")

    result = page.locator(".snippet")
    expect(result).to_have_count(1)
    expect(result).to_contain_text("in the PDF, p. 2:")
    expect(result.locator("mark").first).to_have_text("final")
    expect(page.get_by_role("link", name="Sparse sensing")).to_be_visible()
    screenshot("pdf-text-search")

    page.goto(f"{live_server.url}/")
    page.locator("#facet-pdf").get_by_text("Has PDF").click()
    expect(page.get_by_role("link", name="Sparse sensing")).to_be_visible()
    expect(page.get_by_role("link", name="Dense sensing")).to_have_count(0)
    assert console.problems == []
