"""Who may move a highlight's anchor, where to, and the record of it (issue 43, finding 12):
its author or a curator, within the stored PDF's pages, recorded with who and when. Another
member's POST answered 200 before, and page 9999 with made-up context was stored."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import make_paper, make_user
from tests.highlight_helpers import (
    SENTENCE,
    highlight_post,
    make_highlight,
    store_pdf_row,
    store_pdf_text,
)

pytestmark = pytest.mark.django_db

# Three pages as pypdf stores them; page 2 holds the sentence.
PAGES = ["An opening page.", f"Before it. {SENTENCE} After it.", "A closing page."]


@pytest.fixture
def ann():
    return make_user("ann")


@pytest.fixture
def paper(ann):
    paper = make_paper("Three pages")
    store_pdf_text(store_pdf_row(paper, "1" * 64), PAGES)
    return paper


@pytest.fixture
def lab_highlight(ann, paper):
    # Made on an earlier file: the reader is asked to find it again.
    return make_highlight(ann, paper, visibility="lab", page=1, pdf_sha256="0" * 64)


def anchor(client, highlight, **fields):
    data = {"page": "2", "start": "11", "end": str(11 + len(SENTENCE)), "prefix": "Before it. "}
    data.update(fields)
    return client.post(reverse("highlights:anchor", args=[highlight.pk]), data)


def test_another_member_may_not_move_a_lab_highlight_its_author_may(client, ann, lab_highlight):
    client.force_login(make_user("bob"))
    assert anchor(client, lab_highlight, page="3").status_code == 404
    lab_highlight.refresh_from_db()
    assert (lab_highlight.page, lab_highlight.start, lab_highlight.anchored_by) == (1, 10, None)

    client.force_login(ann)
    response = anchor(client, lab_highlight)
    assert response.status_code == 200
    assert (response.json()["page"], response.json()["start"]) == (2, 11)
    lab_highlight.refresh_from_db()
    assert (lab_highlight.page, lab_highlight.start, lab_highlight.anchored_by) == (2, 11, ann)
    assert lab_highlight.anchored_at is not None


def test_a_curator_may_move_it_and_is_recorded(client, lab_highlight):
    curator = make_user("curator", is_staff=True)
    client.force_login(curator)
    assert anchor(client, lab_highlight, orphaned="1").status_code == 200
    lab_highlight.refresh_from_db()
    assert (lab_highlight.orphaned, lab_highlight.anchored_by) == (True, curator)


def test_another_member_may_not_orphan_it_either(client, lab_highlight):
    client.force_login(make_user("bob"))
    assert anchor(client, lab_highlight, orphaned="1").status_code == 404
    lab_highlight.refresh_from_db()
    assert (lab_highlight.orphaned, lab_highlight.pdf_sha256) == (False, "0" * 64)


def test_items_say_who_may_move_them(client, ann, paper, lab_highlight):
    url = reverse("highlights:list", args=[paper.pk])
    for member, expected in ((ann, True), (make_user("bob"), False)):
        client.force_login(member)
        (item,) = client.get(url).json()["highlights"]
        assert item["can_anchor"] is expected
    client.force_login(make_user("curator", is_staff=True))
    assert client.get(url).json()["highlights"][0]["can_anchor"] is True


@pytest.mark.parametrize("page", ["9999", "4"])
def test_a_page_past_the_stored_pdf_is_refused(client, ann, lab_highlight, page):
    client.force_login(ann)
    response = anchor(client, lab_highlight, page=page, prefix="made up", suffix="context")
    assert response.status_code == 400
    assert response.json()["errors"]["page"] == ["This PDF has 3 pages: give a page from 1 to 3."]
    lab_highlight.refresh_from_db()
    assert (lab_highlight.page, lab_highlight.prefix, lab_highlight.anchored_by) == (1, "", None)


def test_the_last_page_is_accepted(client, ann, lab_highlight):
    client.force_login(ann)
    response = anchor(client, lab_highlight, page="3", start="0", end=str(len(SENTENCE)))
    assert response.status_code == 200


def test_positions_far_past_the_pages_text_are_refused(client, ann, lab_highlight):
    client.force_login(ann)
    response = anchor(client, lab_highlight, start="500000", end=str(500000 + len(SENTENCE)))
    assert response.status_code == 400
    (message,) = response.json()["errors"]["end"]
    assert message.startswith("Page 2 of this PDF holds about 48 characters")
    lab_highlight.refresh_from_db()
    assert lab_highlight.page == 1


def test_a_new_highlight_is_bounded_by_the_stored_pdf_too(client, ann, paper):
    client.force_login(ann)
    url = reverse("highlights:list", args=[paper.pk])
    assert client.post(url, highlight_post(page="9999")).status_code == 400
    on_page_3 = highlight_post(page="3", start="0", end=str(len(SENTENCE)))
    assert client.post(url, on_page_3).status_code == 201


def test_without_a_stored_text_of_the_present_file_only_the_fixed_bounds_apply(
    client, ann, paper, lab_highlight
):
    store_pdf_row(paper, "2" * 64)  # a new file, not read yet: its text is the old file's
    client.force_login(ann)
    assert anchor(client, lab_highlight, page="9999").status_code == 200
    assert anchor(client, lab_highlight, page="10001").status_code == 400
