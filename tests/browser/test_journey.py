"""A new user's first session in a real Chromium, against the seed papers, under the real CSP.

They browse the list, narrow it with two facets, search, read a paper whose abstract has math,
log in, and then annotate: a note, a reading list whose status they change, a comment, and
the list's exports. Each step checks what the person sees on the page, not only the database.
"""

from __future__ import annotations

import csv
import io
import re

import bibtexparser
import pytest
from django.core.management import call_command
from django.db.models import Q

from annotations.models import Comment, Note, ReadingList, ReadingListItem
from papers.filters import DEFAULT_PER_PAGE
from papers.models import Paper
from tests.browser.journey_helpers import ConsoleWatch, download_text
from tests.factories import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Facts about the seed documents in fixtures/ that the journey relies on.
TRACK_FACET, TRACK = "Presentation track", "Poster"
AUTHOR_FACET, AUTHOR = "Authors", "Dingli Yu"
QUERY = "skills"
MATH_PAPER_TITLE = "SKILL-MIX: a Flexible and Expandable Family of Evaluations for AI Models"
LIST_NAME = "Evaluation papers"


@pytest.fixture
def seeded(db):
    call_command("import_papers", "fixtures/", verbosity=0)
    make_user("newcomer")
    return Paper.objects.get(title=MATH_PAPER_TITLE)


def _results_heading(page):
    return page.get_by_role("heading", level=1)


def _chip(chips, facet: str, value: str):
    return chips.get_by_role("link", name=f"Remove filter {facet}: {value}")


def test_new_user_journey(page, live_server, screenshot, seeded):
    # Imported here, not at the top: without Playwright the `page` fixture skips (or fails
    # under REQUIRE_BROWSER_TESTS=1) with its reason instead of a collection error.
    from playwright.sync_api import expect

    paper = seeded
    console = ConsoleWatch().attach(page)
    base = live_server.url

    # 1. The list page shows how many papers there are, and the first page of them.
    total = Paper.objects.count()
    assert total == 119
    page.goto(f"{base}/")
    expect(_results_heading(page)).to_have_text(f"{total} papers")
    expect(page.locator(".paper-list .paper-item")).to_have_count(min(total, DEFAULT_PER_PAGE))
    screenshot("list")

    # 2. Two facets, ticked in the filter sidebar: each tick reloads the list.
    page.get_by_role("group", name=TRACK_FACET).get_by_label(TRACK).check()
    page.wait_for_url(re.compile(r"[?&]track=poster(&|$)"))
    in_track = Paper.objects.filter(paper_tags__tag__kind="track", paper_tags__tag__name=TRACK)
    expect(_results_heading(page)).to_have_text(f"{in_track.count()} papers")
    assert in_track.count() < total

    page.get_by_role("group", name=AUTHOR_FACET).get_by_label(AUTHOR).check()
    page.wait_for_url(re.compile(r"[?&]author=\d+(&|$)"))
    assert "track=poster" in page.url
    by_both = in_track.filter(authorships__author__name=AUTHOR).distinct()
    expect(_results_heading(page)).to_have_text(f"{by_both.count()} papers")
    assert 1 < by_both.count() < in_track.count()
    expect(page.locator(".paper-list .paper-item")).to_have_count(by_both.count())
    chips = page.get_by_role("list", name="Active filters")
    expect(_chip(chips, TRACK_FACET, TRACK)).to_be_visible()
    expect(_chip(chips, AUTHOR_FACET, AUTHOR)).to_be_visible()

    # 3. A search within those filters: matches come back with the words highlighted.
    page.get_by_role("searchbox", name="Search papers").fill(QUERY)
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_url(re.compile(rf"[?&]q={QUERY}(&|$)"))
    assert "track=poster" in page.url and "author=" in page.url
    found = by_both.filter(
        Q(title__icontains=QUERY) | Q(abstract__icontains=QUERY) | Q(author_names__icontains=QUERY)
    )
    expect(_results_heading(page)).to_have_text(f"{found.count()} paper for “{QUERY}”")
    assert list(found) == [paper]
    result = page.locator(".paper-list .paper-item").filter(has_text=MATH_PAPER_TITLE)
    expect(result.locator(".snippet mark").first).to_be_visible()
    assert QUERY in [text.lower() for text in result.locator(".snippet mark").all_inner_texts()]
    expect(_chip(chips, AUTHOR_FACET, AUTHOR)).to_be_visible()

    # 4. The paper page: KaTeX has typeset the abstract's $...$ math.
    # The result's link carries the list's state, for "back to results" and previous/next.
    opened = re.compile(rf"^{re.escape(base + paper.get_absolute_url())}\?from=.+&at=1$")
    result.get_by_role("link", name=MATH_PAPER_TITLE).click()
    page.wait_for_url(opened)
    expect(page.get_by_role("heading", level=1)).to_have_text(MATH_PAPER_TITLE)
    abstract = page.locator(".abstract-text")
    assert "$N$" in paper.abstract and "$" in paper.abstract
    expect(abstract.locator(".katex").first).to_be_visible()
    assert abstract.locator(".katex").count() >= 2
    assert "$" not in abstract.inner_text()
    screenshot("paper")

    # 5. Logging in from the paper page comes back to it.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Log in").click()
    page.wait_for_url(re.compile(r"/accounts/login/\?next="))
    page.get_by_label("Username").fill("newcomer")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(opened)
    # A member's menu is in the header, named for them, Log out in it.
    nav = page.get_by_role("navigation", name="Main", exact=True)
    expect(nav.locator(".member-menu-who")).to_have_text("newcomer")
    nav.locator(".member-menu summary").click()
    expect(nav.get_by_role("button", name="Log out")).to_be_visible()
    nav.locator(".member-menu summary").click()

    # 6. A private note shows up among their notes on the page.
    notes = page.locator("#paper-notes")
    notes.get_by_label("Note").fill("Try the *SKILL-MIX* setup with $k=3$.")
    notes.get_by_role("button", name="Save note").click()
    expect(notes.get_by_role("status")).to_have_text("Note saved.")
    body = notes.locator(".note .note-body")
    expect(body.locator("em")).to_have_text("SKILL-MIX")
    expect(body.locator(".katex")).to_be_visible()  # the note's math is typeset
    assert "$" not in body.inner_text()
    assert Note.objects.get(paper=paper).owner.username == "newcomer"

    # 7. The paper goes into a new reading list.
    lists = page.locator("#paper-lists")
    lists.get_by_label("Add to a new list named").fill(LIST_NAME)
    lists.get_by_role("button", name="Add", exact=True).click()
    expect(lists.get_by_role("status")).to_have_text(f"Added to “{LIST_NAME}”.")
    expect(lists.locator(".list-memberships li").filter(has_text=LIST_NAME)).to_contain_text(
        "in this list"
    )

    # 8. On the list's page its status changes to Reading, and stays so after a reload.
    lists.get_by_role("link", name=LIST_NAME).click()
    reading_list = ReadingList.objects.get(owner__username="newcomer", name=LIST_NAME)
    page.wait_for_url(f"{base}{reading_list.get_absolute_url()}")
    expect(page.get_by_role("heading", level=1)).to_have_text(LIST_NAME)
    item = page.locator(".reading-list-item").filter(has_text=MATH_PAPER_TITLE)
    expect(item.get_by_label("Status").locator("option:checked")).to_have_text("To read")
    item.get_by_label("Status").select_option(label="Reading")
    item.get_by_role("button", name="Set status").click()
    # The list page holds two status regions (this flash, and the "Add paper" box's live
    # region, which is empty until a lookup): the flash is the one that reports the change.
    flash = page.locator("#list-items").get_by_role("status").filter(has_text="Updated")
    expect(flash).to_contain_text(MATH_PAPER_TITLE[:20])
    page.reload()
    item = page.locator(".reading-list-item").filter(has_text=MATH_PAPER_TITLE)
    expect(item.get_by_label("Status").locator("option:checked")).to_have_text("Reading")
    assert ReadingListItem.objects.get(reading_list=reading_list).status == "reading"

    # 9. Back on the paper, a comment joins the thread under their name.
    item.get_by_role("link", name=MATH_PAPER_TITLE).click()
    page.wait_for_url(f"{base}{paper.get_absolute_url()}")
    thread = page.locator("#paper-comments")
    expect(thread).to_contain_text("No comments yet.")
    thread.get_by_label("Comment").fill("Has anyone rerun this with open models?")
    thread.get_by_role("button", name="Post comment").click()
    expect(thread.get_by_role("status")).to_have_text("Comment posted.")
    comment = thread.locator(".comment").filter(has_text="Has anyone rerun this with open models?")
    expect(comment.locator(".meta strong")).to_have_text("newcomer")
    assert Comment.objects.get(paper=paper).author.username == "newcomer"

    # 10. The list exports as BibTeX and CSV, each holding the paper.
    nav.get_by_role("link", name="Lists", exact=True).click()
    page.get_by_role("link", name=LIST_NAME).click()
    page.wait_for_url(f"{base}{reading_list.get_absolute_url()}")

    filename, bibtex = download_text(page, page.get_by_role("link", name="BibTeX", exact=True))
    assert filename.endswith(".bib")
    library = bibtexparser.parse_string(bibtex)
    assert library.failed_blocks == []
    assert len(library.entries) == 1
    title = library.entries[0].fields_dict["title"].value
    assert title.replace("{", "").replace("}", "") == MATH_PAPER_TITLE

    filename, text = download_text(page, page.get_by_role("link", name="CSV"))
    assert filename.endswith(".csv")
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    assert len(rows) == 1
    assert MATH_PAPER_TITLE in rows[0].values()

    assert console.problems == []
