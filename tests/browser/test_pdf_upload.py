"""A member uploads a paper's PDF from the paper page in a real browser, under the real CSP
(the form needs no JavaScript), and the page then links the stored PDF, served as a PDF."""

from __future__ import annotations

import pytest

from pdfs.models import PaperPdf
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.factories import make_paper, make_user
from tests.pdf_files import make_pdf

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_member_uploads_a_pdf_and_the_paper_page_links_it(
    page, live_server, settings, tmp_path, screenshot
):
    settings.MEDIA_ROOT = tmp_path / "media"
    make_user("mira")
    paper = make_paper("A paper to upload")
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(make_pdf("Uploaded in a browser."))
    console = ConsoleWatch().attach(page)
    log_in(page, live_server, "mira")

    page.goto(f"{live_server.url}{paper.get_absolute_url()}")
    page.set_input_files("#pdf-upload-file", str(pdf))
    page.get_by_role("button", name="Upload", exact=True).click()

    page.wait_for_selector(".message:has-text('PDF uploaded.')")
    screenshot("pdf-uploaded")
    link = page.get_by_role("link", name="Stored PDF")
    response = page.request.get(f"{live_server.url}{link.get_attribute('href')}")
    assert response.headers["content-type"] == "application/pdf"
    assert response.body() == pdf.read_bytes()
    assert PaperPdf.objects.get(paper=paper).uploaded_by.username == "mira"
    assert console.problems == []
