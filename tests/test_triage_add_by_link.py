"""The results' "Add by link" box (issue 39, point 1): shown to a member with a list whether or
not a result is ticked, it puts one paper on the chosen list by its arXiv, OpenReview or DOI
link (or anything a reading list's "Add paper" box takes), and only that paper. A paper not yet
in the catalogue is fetched in the background (papers.link_tasks; arXiv replayed by respx, the
worker run here in batch mode) and goes on the list once added; the member follows the fetch's
page. A link that does not resolve says so there and changes nothing."""

from __future__ import annotations

import html
import re

import httpx
import pytest
import respx
from django.contrib.messages import get_messages

from annotations.models import ReadingListItem
from papers.models import ImportRun, LinkFetch, Paper
from papers.search.sync import current_searcher
from tests.arxiv_feed import atom_entry, feed
from tests.factories import make_paper, make_reading_list
from tests.link_lookup_helpers import ARXIV, run_worker, use_test_services

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
ENTRY = atom_entry(
    "2402.01234",
    title='Schr\\"odinger bridges for\n      Lévy processes',
    authors=("Zoë Müller",),
)


@pytest.fixture(autouse=True)
def outside_services(settings):
    use_test_services(settings)


@pytest.fixture
def results(db):
    made = [make_paper(f"Graph paper {n}") for n in range(2)]
    current_searcher()  # the list page's index, as a running server has it
    return made


def arxiv_answer(*entries: str) -> httpx.Response:
    return httpx.Response(200, text=feed(list(entries), total=len(entries)))


def link_box(client) -> dict[str, str]:
    """The results page's own link box: its form's action, and the names of its text box and
    list menu (which belong to it through their `form` attribute)."""
    page = client.get("/?q=graph").content.decode()
    box = re.search(r'<div class="link-to-list".*?</div>', page, re.DOTALL)
    action = re.search(r'<form id="link-form" method="post" action="([^"]+)"', page)
    assert box and action
    text = re.search(r'<input id="link-to-list-paper" form="link-form" name="([^"]+)"', box[0])
    menu = re.search(r'<select id="link-to-list-list" form="link-form" name="([^"]+)"', box[0])
    assert text and menu
    return {"action": html.unescape(action[1]), "text": text[1], "list": menu[1], "page": page}


def add_by_link(client, reading_list, typed: str):
    box = link_box(client)
    data = {box["list"]: reading_list.pk, box["text"]: typed, "next": "/?q=graph"}
    return client.post(box["action"], data)


def listed(reading_list) -> list[str]:
    return [item.paper.title for item in reading_list.items.select_related("paper")]


def said(response) -> str:
    return " ".join(str(m) for m in get_messages(response.wsgi_request))


def test_the_box_shows_without_a_ticked_result_outside_the_bulk_bar(client, user, results):
    make_reading_list(user, "Tools")
    client.force_login(user)

    page = link_box(client)["page"]

    bar = re.search(r'<div class="triage-bulk".*?</div>\n', page, re.DOTALL)
    assert bar is not None and "link-to-list" not in bar[0]  # the bar hides until one is ticked
    assert 'form="bulk-form" name="link"' not in page


def test_a_visitor_and_a_member_without_a_list_see_no_box(client, user, results):
    assert 'class="link-to-list"' not in client.get("/?q=graph").content.decode()
    client.force_login(user)
    assert 'class="link-to-list"' not in client.get("/?q=graph").content.decode()


@respx.mock
def test_a_paper_not_yet_here_is_fetched_then_put_on_the_list(client, user, results):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(ENTRY))
    reading_list = make_reading_list(user, "To read")
    client.force_login(user)

    response = add_by_link(client, reading_list, "https://arxiv.org/abs/2402.01234v2")
    assert not route.called and not reading_list.items.exists()  # queued, not fetched
    fetch = LinkFetch.objects.get()
    assert response.status_code == 303 and response["Location"] == fetch.get_absolute_url()
    run_worker()

    assert route.call_count == 1
    paper = Paper.objects.get(arxiv_id="2402.01234")
    assert listed(reading_list) == ["Schrödinger bridges for Lévy processes"]
    run = ImportRun.objects.get()
    assert (run.user, run.invoked_by) == (user, f"Triage, add to list ({user})")
    assert paper.created_by_import == run
    assert client.get(fetch.get_absolute_url(), **HTMX)["HX-Redirect"] == (
        reading_list.get_absolute_url()
    )


def test_only_the_links_paper_goes_on_the_list_not_the_ticked_ones(client, user, results):
    known = make_paper("Known", doi="10.1000/known")
    reading_list = make_reading_list(user, "To read")
    client.force_login(user)
    box = link_box(client)
    # What the browser sends with a result ticked: the ticked box belongs to the bulk form.
    data = {box["list"]: reading_list.pk, box["text"]: "https://doi.org/10.1000/KNOWN"}

    response = client.post(box["action"], {**data, "next": "/?q=graph"})

    assert response.status_code == 302 and response["Location"] == "/?q=graph"
    assert listed(reading_list) == [known.title]
    assert "Added to “To read”: “Known”." in said(response)
    assert not LinkFetch.objects.exists() and not ImportRun.objects.exists()


@respx.mock
def test_a_link_that_does_not_resolve_says_so_and_changes_nothing(client, user, results):
    respx.get(ARXIV).mock(return_value=arxiv_answer())  # arXiv's empty feed: no such paper
    reading_list = make_reading_list(user, "To read")
    client.force_login(user)

    page_url = add_by_link(client, reading_list, "https://arxiv.org/abs/2402.99999")["Location"]
    run_worker()

    assert "arXiv has no paper 2402.99999." in client.get(page_url).content.decode()
    assert not ReadingListItem.objects.exists()
    assert not Paper.objects.filter(arxiv_id="2402.99999").exists()


@respx.mock
def test_an_unavailable_service_says_so_and_changes_nothing(client, user, results):
    respx.get(ARXIV).mock(return_value=httpx.Response(503, text="Service Unavailable"))
    reading_list = make_reading_list(user)
    client.force_login(user)

    page_url = add_by_link(client, reading_list, "2402.01234")["Location"]
    run_worker()

    assert "arXiv did not answer; try again later." in client.get(page_url).content.decode()
    assert not ReadingListItem.objects.exists() and not ImportRun.objects.exists()


def test_text_that_names_no_paper_is_refused(client, user, results):
    reading_list = make_reading_list(user)
    client.force_login(user)

    response = add_by_link(client, reading_list, "no such thing at all")

    assert response.status_code == 302
    assert "No paper matches “no such thing at all”" in said(response)
    assert not ReadingListItem.objects.exists() and not LinkFetch.objects.exists()


@respx.mock
def test_nothing_is_fetched_for_a_list_that_is_not_the_members(client, user, other_user, results):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(ENTRY))
    theirs = make_reading_list(other_user)
    client.force_login(user)
    make_reading_list(user)  # the box's menu needs one of the member's own

    response = add_by_link(client, theirs, "2402.01234")

    assert response.status_code == 302 and "not one of yours" in said(response)
    assert not LinkFetch.objects.exists()
    run_worker()
    assert not route.called and not Paper.objects.filter(arxiv_id="2402.01234").exists()


def test_the_bulk_bar_takes_no_link(client, user, results):
    reading_list = make_reading_list(user)
    client.force_login(user)
    data = {"action": "list", "reading_list": reading_list.pk, "link": "2402.01234"}

    response = client.post("/triage/", data, **HTMX)

    assert response.status_code == 400 and "Select at least one paper." in response.text
    assert not LinkFetch.objects.exists() and not ReadingListItem.objects.exists()
