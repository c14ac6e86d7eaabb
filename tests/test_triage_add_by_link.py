"""The results' "Add to list" takes a paper by its link, as a reading list's "Add paper" box does
(the box's own form, papers.sources.single): an arXiv, OpenReview or DOI link of a paper not yet
in the catalogue fetches it (replayed by respx), adds it as the member's import and puts it on the
chosen list in the same step; a link that does not resolve says so and changes nothing."""

from __future__ import annotations

import html
import re

import httpx
import pytest
import respx
from django.contrib.messages import get_messages

from annotations.models import ReadingListItem
from papers.models import ImportRun, Paper
from papers.search.sync import current_searcher
from papers.sources import single
from tests.arxiv_feed import atom_entry, feed
from tests.factories import make_paper, make_reading_list

pytestmark = pytest.mark.django_db

ARXIV = "https://arxiv.test/api/query"
HTMX = {"HTTP_HX_REQUEST": "true"}
ENTRY = atom_entry(
    "2402.01234",
    title='Schr\\"odinger bridges for\n      Lévy processes',
    authors=("Zoë Müller",),
)


@pytest.fixture(autouse=True)
def outside_services(settings, monkeypatch):
    settings.ARXIV_API_URL = ARXIV
    settings.ARXIV_API_DELAY = 0
    monkeypatch.setattr(single, "LOOKUP_BACKOFF", 0.0)


@pytest.fixture
def results(db):
    made = [make_paper(f"Graph paper {n}") for n in range(2)]
    current_searcher()  # the list page's index, as a running server has it
    return made


def arxiv_answer(*entries: str) -> httpx.Response:
    return httpx.Response(200, text=feed(list(entries), total=len(entries)))


def toolbar(client) -> dict[str, str]:
    """The results page's own bulk form: its action, and the names of the toolbar's list menu
    and link box (which belong to it through their `form` attribute)."""
    page = client.get("/?q=graph").content.decode()
    action = re.search(r'<form id="bulk-form" method="post" action="([^"]+)"', page)
    link = re.search(r'<input id="bulk-link" form="bulk-form" name="([^"]+)"', page)
    menu = re.search(r'<select id="bulk-list" form="bulk-form" name="([^"]+)"', page)
    button = re.search(r'<button[^>]*form="bulk-form"[^>]*name="action" value="list"', page)
    assert action and link and menu and button
    ids = re.search(r'name="page_papers" value="([^"]*)"', page)
    return {
        "action": html.unescape(action.group(1)),
        "link": link.group(1),
        "list": menu.group(1),
        "page_papers": ids.group(1) if ids else "",
    }


def add_by_link(client, reading_list, typed: str, *, selected=(), **headers):
    form = toolbar(client)
    data = {
        "action": "list",
        form["list"]: reading_list.pk,
        form["link"]: typed,
        "page_papers": form["page_papers"],
        "paper": [paper.pk for paper in selected],
        "next": "/?q=graph",
    }
    return client.post(form["action"], data, **headers)


def listed(reading_list) -> list[str]:
    return list(reading_list.items.order_by("pk").values_list("paper__title", flat=True))


@respx.mock
def test_a_paper_not_yet_here_is_fetched_added_and_put_on_the_list(client, user, results):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(ENTRY))
    reading_list = make_reading_list(user, "To read")
    client.force_login(user)

    response = add_by_link(client, reading_list, "https://arxiv.org/abs/2402.01234v2", **HTMX)

    assert route.call_count == 1
    assert response.status_code == 200
    assert "Added to “To read”: “Schrödinger bridges for Lévy processes”." in response.text
    paper = Paper.objects.get(arxiv_id="2402.01234")
    assert listed(reading_list) == [paper.title]
    run = ImportRun.objects.get()
    assert (run.user, run.invoked_by) == (user, f"Triage, add to list ({user})")
    assert paper.created_by_import == run
    # Not one of the results: no block of it is swapped in.
    assert f'id="triage-{paper.pk}"' not in response.text


@respx.mock
def test_a_link_goes_on_the_list_with_the_selected_results(client, user, results):
    respx.get(ARXIV).mock(return_value=arxiv_answer(ENTRY))
    reading_list = make_reading_list(user, "To read")
    client.force_login(user)

    response = add_by_link(client, reading_list, "arXiv:2402.01234", selected=[results[1]])

    assert response.status_code == 302
    assert listed(reading_list) == ["Graph paper 1", "Schrödinger bridges for Lévy processes"]
    messages = " ".join(str(m) for m in get_messages(response.wsgi_request))
    assert "Added 2 papers to “To read”." in messages


@respx.mock
def test_a_paper_already_here_is_added_without_a_fetch(client, user, results):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(ENTRY))
    known = make_paper("Known", doi="10.1000/known")
    reading_list = make_reading_list(user)
    client.force_login(user)

    add_by_link(client, reading_list, "https://doi.org/10.1000/KNOWN", **HTMX)

    assert not route.called and not ImportRun.objects.exists()
    assert listed(reading_list) == [known.title]


@respx.mock
def test_a_link_that_does_not_resolve_says_so_and_changes_nothing(client, user, results):
    respx.get(ARXIV).mock(return_value=arxiv_answer())  # arXiv's empty feed: no such paper
    reading_list = make_reading_list(user, "To read")
    client.force_login(user)

    response = add_by_link(
        client, reading_list, "https://arxiv.org/abs/2402.99999", selected=results, **HTMX
    )

    assert response.status_code == 400
    assert "arXiv has no paper 2402.99999." in response.text
    assert not ReadingListItem.objects.exists()
    assert not Paper.objects.filter(arxiv_id="2402.99999").exists()


@respx.mock
def test_an_unavailable_service_says_so_and_changes_nothing(client, user, results):
    respx.get(ARXIV).mock(return_value=httpx.Response(503, text="Service Unavailable"))
    reading_list = make_reading_list(user)
    client.force_login(user)

    response = add_by_link(client, reading_list, "2402.01234", **HTMX)

    assert response.status_code == 400
    assert "arXiv did not answer; try again later." in response.text
    assert not ReadingListItem.objects.exists() and not ImportRun.objects.exists()


@respx.mock
def test_text_that_names_no_paper_is_refused(client, user, results):
    reading_list = make_reading_list(user)
    client.force_login(user)
    response = add_by_link(client, reading_list, "no such thing at all", **HTMX)
    assert response.status_code == 400
    assert "No paper matches “no such thing at all”" in response.text
    assert not ReadingListItem.objects.exists()


@respx.mock
def test_nothing_is_fetched_for_a_list_that_is_not_the_members(client, user, other_user, results):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(ENTRY))
    theirs = make_reading_list(other_user)
    client.force_login(user)
    make_reading_list(user)  # the toolbar's menu needs one of the member's own

    response = add_by_link(client, theirs, "2402.01234", **HTMX)

    assert response.status_code == 400 and "not one of yours" in response.text
    assert not route.called and not Paper.objects.filter(arxiv_id="2402.01234").exists()


@respx.mock
def test_the_link_is_read_only_by_add_to_list(client, user, results):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(ENTRY))
    make_reading_list(user)
    client.force_login(user)
    data = {"action": "save", "paper": [results[0].pk], "link": "2402.01234"}
    client.post(toolbar(client)["action"], data, **HTMX)
    assert not route.called
    assert [item.paper for item in ReadingListItem.objects.all()] == [results[0]]
