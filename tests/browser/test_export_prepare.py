"""An export too large for one download, in a real browser under the real CSP: the export link
shows why it was not sent and offers to prepare it; the member's click prepares it, "Your
exports" updates itself (htmx) once the worker has written it, and the link downloads every
paper."""

from __future__ import annotations

import pytest

from annotations import export_jobs
from annotations.models import ExportJob
from papers.importing import bibtex
from tests.browser.journey_helpers import ConsoleWatch, download_text, log_in
from tests.factories import make_paper, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_member_prepares_a_large_export_and_downloads_it(page, live_server, settings):
    settings.EXPORT_MAX_MEMBER = 2
    settings.MEDIA_ROOT = settings.BASE_DIR / "test-output" / "media"
    make_user("dana")
    for n in range(3):
        make_paper(f"Diffusion {n}")
    console = ConsoleWatch().attach(page)
    log_in(page, live_server, "dana")
    page.goto(f"{live_server.url}/?q=diffusion")
    page.locator(".export-links").get_by_role("link", name="BibTeX").click()
    page.wait_for_selector("text=This export holds 3 papers; one download may hold up to 2.")

    page.click("button:has-text('Prepare the export')")
    page.wait_for_url(f"{live_server.url}/exports/")
    page.wait_for_selector("[role=status]:has-text('Being prepared')")
    # The worker's part, as `manage.py task_worker` would run it; the page asks again by itself.
    export_jobs.write_job(ExportJob.objects.get().pk)
    link = page.locator("#export-jobs a", has_text="papers.bib")
    link.wait_for()
    filename, text = download_text(page, link)
    assert filename == "papers.bib"
    # Read as a reference manager reads it: the braces that protect capitals are not text.
    titles = {record.title for record in bibtex.read(text, "papers.bib")}
    assert titles == {"Diffusion 0", "Diffusion 1", "Diffusion 2"}
    # The refusal is a 403 (a script asking for the file must not take the page for it),
    # which the browser notes once; nothing else went wrong.
    assert console.problems == [
        "console error: Failed to load resource: the server responded with a status of 403 "
        "(Forbidden)"
    ]
