"""The Cite section's Copy buttons and the list page's export links in a real browser, under
the real CSP: a click copies the reference (static/js/cite.js, no inline script), and the
"BibTeX" link of a search downloads exactly that search's papers."""

from __future__ import annotations

import bibtexparser
import pytest

from papers.importing import bibtex
from papers.models import TagKind
from tests.browser.journey_helpers import ConsoleWatch, download_text
from tests.factories import make_paper

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_copy_buttons_put_the_citation_on_the_clipboard(page, live_server):
    paper = make_paper(
        "Copyable diffusion", authors=["Ada Lovelace"], tags=[("ICLR 2024", TagKind.VENUE)]
    )
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")

    # The references wait folded behind one line, so loading them moves nothing (issue 28).
    page.click(".cite summary")
    page.click("button[data-copy-target=cite-apa]")
    page.wait_for_selector(".cite-status:has-text('Copied.')")
    apa = page.evaluate("navigator.clipboard.readText()")
    assert apa == page.text_content("#cite-apa")
    assert apa.startswith("Lovelace, A. (2024). Copyable diffusion.")

    page.click("button[data-copy-target=cite-bibtex]")
    [entry] = bibtexparser.parse_string(page.evaluate("navigator.clipboard.readText()")).entries
    assert entry.key == f"lovelace2024copyable-{paper.pk}"
    assert console.problems == []


def test_list_page_bibtex_link_downloads_the_search(page, live_server):
    make_paper("Diffusion one")
    make_paper("Diffusion two")
    make_paper("Something else")
    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}/?q=diffusion")
    filename, text = download_text(
        page, page.locator(".export-links").get_by_role("link", name="BibTeX")
    )
    assert filename == "papers.bib"
    # Read as a reference manager reads it: the braces that protect capitals are not text.
    titles = {record.title for record in bibtex.read(text, "papers.bib")}
    assert titles == {"Diffusion one", "Diffusion two"}
    assert console.problems == []
