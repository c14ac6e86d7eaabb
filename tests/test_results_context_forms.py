"""Without JavaScript, the paper page's forms (note, comment, reading list, lab tag) keep the
member's place in the results they opened the paper from: each form posts the page's `from`
and `at` along, and the redirect back to the paper page puts them back, so "Back to results"
and previous/next are still there after the POST."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from annotations.models import Comment, Note, ReadingListItem
from papers.models import PaperTag, TagKind
from tests.factories import make_paper, make_reading_list

pytestmark = pytest.mark.django_db

RESULT_LINK = re.compile(r'<h2 class="paper-title"><a href="([^"]+)"')
HIDDEN = re.compile(r'<input type="hidden" name="(from|at)" value="([^"]*)">')


@pytest.fixture
def opened(client, user):
    """The member on the second of three results, opened from the list page's link."""
    for letter in "ABC":
        make_paper(f"{letter} graph paper", tags=[("Oral", TagKind.TRACK)])
    client.force_login(user)
    listing = client.get(reverse("papers:list"), {"q": "graph", "sort": "title"})
    link = unescape(RESULT_LINK.findall(listing.content.decode())[1])
    page = client.get(link)
    assert page.context["navigation"].rank == 2
    return page


def posted_along(page) -> dict[str, str]:
    """The `from` and `at` every form of the page's panel carries (all the same)."""
    found = {(name, unescape(value)) for name, value in HIDDEN.findall(page.content.decode())}
    assert {name for name, _ in found} == {"from", "at"}, "one `from` and one `at` throughout"
    return dict(found)


def back_on_the_paper_page(client, response):
    assert response.status_code == 302
    page = client.get(response["Location"])
    assert page.context["navigation"] is not None, response["Location"]
    assert page.context["navigation"].rank == 2
    assert "← Back to results" in page.content.decode()
    return page


def test_every_form_of_the_panel_carries_the_results_context(opened):
    content = opened.content.decode()
    panel = content[content.index('<aside class="annotations"') : content.index("</aside>")]
    forms = re.findall(r'<form\b[^>]*method="post".*?</form>', panel, re.S)
    # Note, comment, list (add and remove), lab tag; the Save panel's triage form posts
    # `next`, the page's own URL with its query string, instead.
    assert len(forms) >= 4
    for form in forms:
        if 'id="triage-form"' not in form:
            assert 'name="from"' in form and 'name="at"' in form, form[:120]


@pytest.mark.parametrize(
    "name, data, made",
    [
        ("note-add", {"body": "a note"}, lambda: Note.objects.exists()),
        ("comment-add", {"body": "a comment"}, lambda: Comment.objects.exists()),
        ("tag-add", {"name": "reading group"}, lambda: PaperTag.objects.exists()),
        ("paper-list-add", {"new_list_name": "Later"}, lambda: ReadingListItem.objects.exists()),
    ],
)
def test_posting_without_javascript_comes_back_with_the_results_navigation(
    client, opened, name, data, made
):
    paper = opened.context["paper"]
    response = client.post(
        reverse(f"annotations:{name}", args=[paper.pk]), data | posted_along(opened)
    )
    assert made()
    back_on_the_paper_page(client, response)


def test_removing_from_a_list_comes_back_with_the_results_navigation(client, user, opened):
    paper = opened.context["paper"]
    reading_list = make_reading_list(user, "Queue", papers=[paper])
    page = client.get(opened.wsgi_request.get_full_path())
    item = reading_list.items.get()
    response = client.post(
        reverse("annotations:list-item-remove", args=[reading_list.pk, item.pk]),
        {"next": f"{paper.get_absolute_url()}#paper-lists"} | posted_along(page),
    )
    back_on_the_paper_page(client, response)
    assert response["Location"].endswith("#paper-lists")


def test_a_refused_comment_keeps_the_results_context_on_its_own_page(client, opened):
    paper = opened.context["paper"]
    params = posted_along(opened)
    refused = client.post(
        reverse("annotations:comment-add", args=[paper.pk]), {"body": ""} | params
    )
    assert posted_along(refused) == params
    response = client.post(
        reverse("annotations:comment-add", args=[paper.pk]), {"body": "now with text"} | params
    )
    back_on_the_paper_page(client, response)


def test_a_form_posted_from_a_paper_opened_directly_redirects_as_before(client, user):
    paper = make_paper("Opened directly")
    client.force_login(user)
    assert 'name="from"' not in client.get(paper.get_absolute_url()).content.decode()
    response = client.post(reverse("annotations:note-add", args=[paper.pk]), {"body": "x"})
    assert response["Location"] == f"{paper.get_absolute_url()}#paper-notes"


def test_from_and_at_posted_to_a_view_that_redirects_to_a_url_name(client, user):
    # "Mark all read" redirects to a URL name; appending the results context to the name
    # made it unresolvable (NoReverseMatch, a 500) for any POST that carried from and at.
    client.force_login(user)
    response = client.post(
        reverse("annotations:notifications-mark-all-read"), {"from": "q=graph", "at": "2"}
    )
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("annotations:notifications") + "?")
