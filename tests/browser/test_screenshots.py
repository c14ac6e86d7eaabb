"""The README's screenshots, taken in a real Chromium: the paper list, a paper page and the
admin curation queue, over the seed papers in fixtures/.

Each page is checked for what the picture is meant to show before it is taken. The pictures go
to tmp_path; with UPDATE_SCREENSHOTS=1 they replace the ones in docs/screenshots/:

    UPDATE_SCREENSHOTS=1 DJANGO_SECRET_KEY=x .venv/bin/python -m pytest \\
        tests/browser/test_screenshots.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotations.discussion import post_comment
from annotations.models import ReadingStatus
from papers.admin.common import curation_queue_url
from papers.filters import DEFAULT_PER_PAGE
from papers.models import Paper
from tests.browser.journey_helpers import PHONE
from tests.factories import (
    PASSWORD,
    make_lab_tag,
    make_note,
    make_paper,
    make_reading_list,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# The README shows the first screen of each page, as a person opening it sees it.
VIEWPORT = {"width": 1280, "height": 800}


@pytest.fixture
def shots(page, tmp_path):
    """Take a screenshot of the viewport; into docs/screenshots/ with UPDATE_SCREENSHOTS=1."""
    directory = DOCS_SCREENSHOTS if os.environ.get("UPDATE_SCREENSHOTS") == "1" else tmp_path
    directory.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(VIEWPORT)

    def take(name: str, keep_viewport: bool = False) -> Path:
        if not keep_viewport:
            page.set_viewport_size(VIEWPORT)
        path = directory / f"{name}.png"
        page.screenshot(path=str(path))
        assert path.stat().st_size > 0
        return path

    return take


@pytest.fixture
def catalogue(db):
    """The seed papers, a paper with math, a later copy of another paper that
    flag_duplicate_papers puts in the curation queue, and a curator."""
    call_command("import_papers", "fixtures/", verbosity=0)
    math_paper = Paper.objects.filter(abstract__contains="$").exclude(title="").earliest("pk")
    original = Paper.objects.exclude(title="").exclude(pk=math_paper.pk).earliest("pk")
    copy = make_paper(original.title.upper())
    call_command("flag_duplicate_papers", verbosity=0)
    get_user_model().objects.create_superuser("curator", "curator@example.org", PASSWORD)
    return math_paper, original, copy


def test_screenshots_of_list_paper_and_curation_queue(page, live_server, shots, catalogue):
    # Imported here: without Playwright the `page` fixture skips (or fails) with its reason.
    from playwright.sync_api import expect

    math_paper, original, copy = catalogue
    base = live_server.url

    # The list narrowed to one track (whose papers all have titles), as a chip shows.
    posters = Paper.objects.filter(paper_tags__tag__kind="track", paper_tags__tag__slug="poster")
    page.goto(f"{base}/?track=poster&sort=title")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{posters.count()} papers")
    titles = page.locator(".paper-list .paper-item .paper-title").all_inner_texts()
    assert len(titles) == DEFAULT_PER_PAGE
    assert set(titles) <= set(posters.values_list("title", flat=True))
    expect(page.get_by_role("list", name="Active filters")).to_contain_text("Poster")
    shots("paper-list")

    page.goto(f"{base}{math_paper.get_absolute_url()}")
    expect(page.get_by_role("heading", level=1)).to_have_text(math_paper.title)
    expect(page.locator(".abstract-text .katex").first).to_be_visible()
    shots("paper-page")

    # The curator logs in to the admin and follows the index's link to the queue.
    page.goto(f"{base}/admin/")
    page.get_by_label("Username").fill("curator")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    waiting = Paper.objects.filter(needs_curation=True).count()
    queue_link = page.locator("#curation-queue").get_by_role(
        "link", name=f"{waiting} papers need curation"
    )
    queue_link.click()
    page.wait_for_url(f"{base}{curation_queue_url()}")
    # The newest first: the copy heads the queue, named as a duplicate of the original.
    row = page.locator("#result_list tbody tr").first
    expect(row).to_contain_text(copy.title)
    expect(row).to_contain_text(f"possible duplicate of #{original.pk}")
    shots("curation-queue")


def test_screenshots_of_a_members_triage_workspace_and_notifications(
    page, live_server, shots, catalogue
):
    from playwright.sync_api import expect

    math_paper, original, _ = catalogue
    member = get_user_model().objects.create_user("ana", password=PASSWORD)
    colleague = get_user_model().objects.create_user("ben", password=PASSWORD)
    group = make_reading_list(member, "Reading group", papers=[original], is_default=True)
    group.items.update(status=ReadingStatus.READING)
    make_reading_list(member, "Thesis background", papers=[math_paper])
    make_note(
        member, math_paper, "The bound in **section 3** is what we need; check $O(n \\log n)$."
    )
    # Posted as the site posts them, so that Ben's mention notifies Ana.
    question = post_comment(
        paper=math_paper, author=colleague, body="Does this hold for sparse graphs? cc @ana"
    )
    post_comment(
        paper=math_paper,
        author=member,
        body="Only with the extra assumption in the appendix.",
        parent=question,
    )
    make_lab_tag(math_paper, "reading group", added_by=colleague)
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("ana")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")

    # Triage from the results: each result quiet (Save and More), the first just saved, the
    # second's More open in place (status, lists, lab tag).
    page.goto(f"{live_server.url}/?q=graph")
    expect(page.locator(".paper-item .triage").first).to_be_visible()
    page.locator(".paper-item").first.locator("[data-triage-save]").click()
    expect(page.locator(".paper-item").first.locator(".triage-saved")).to_be_visible()
    expect(page.locator(".htmx-request, .htmx-settling")).to_have_count(0)
    page.locator(".paper-item").nth(1).locator(".triage-more summary").click()
    expect(page.locator(".paper-item").nth(1).locator("[data-triage-status]")).to_be_visible()
    shots("triage-list")

    # The same search on a phone, and in the dark theme.
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/?q=graph")
    expect(page.locator(".paper-item").first).to_be_visible()
    shots("search-phone", keep_viewport=True)
    page.set_viewport_size(VIEWPORT)
    page.emulate_media(color_scheme="dark")
    page.goto(f"{live_server.url}/?q=graph")
    expect(page.locator(".paper-item").first).to_be_visible()
    shots("search-dark")
    page.emulate_media(color_scheme="light")

    # The paper page as a workspace: the member's column beside the paper; on a phone, one
    # column under a one-row header.
    page.goto(f"{live_server.url}{math_paper.get_absolute_url()}")
    expect(page.locator("#paper-notes")).to_contain_text("section 3")
    expect(page.locator("#paper-comments")).to_contain_text("extra assumption")
    shots("paper-workspace")
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}{math_paper.get_absolute_url()}")
    expect(page.locator(".abstract-text .katex").first).to_be_visible()
    shots("paper-phone", keep_viewport=True)

    # Ben's mention reached Ana.
    page.goto(f"{live_server.url}/notifications/")
    expect(page.locator("main")).to_contain_text("sparse graphs")
    shots("notifications")
