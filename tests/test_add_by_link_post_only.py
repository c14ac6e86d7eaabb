"""Findings 5 and 7 of issue 43: a member's GET of the list page with a link in `q` fetched the
paper from outside and added it, so a page elsewhere sending a logged-in member to `/?q=<DOI>`
(SameSite=Lax carries the cookie) made them import it; nothing limited how often. Now a GET
only opens a paper the catalogue has; else it offers a member a button that POSTs the link
(CSRF), counted against a per-member share of lookups (429 past it) and fetched by the task
worker, each lookup bounded by a deadline. Outside services are replayed by respx or a local
server; nothing reaches the internet."""

from __future__ import annotations

import re
import threading
import time
from urllib.parse import quote

import httpx
import pytest
import respx
from django.test import Client
from django.urls import reverse

from papers.models import ImportRun, Paper
from papers.sources import single
from papers.sources.client import _claim_turn as claim_turn
from papers.sources.identifiers import parse_identifier
from tests.factories import make_paper, make_reading_list, make_user
from tests.link_lookup_helpers import (
    ARXIV,
    CROSSREF,
    DOI,
    SCHRODINGER,
    arxiv_answer,
    crossref_work,
    row_counts,
    run_worker,
    use_test_services,
)
from tests.pdf_server import PdfServer

pytestmark = pytest.mark.django_db

LIST = reverse("papers:list")
ADD = reverse("papers:add-by-link")
OTHER_SITE = {"HTTP_REFERER": "https://evil.example/page", "HTTP_ORIGIN": "https://evil.example"}


@pytest.fixture(autouse=True)
def outside_services(settings, monkeypatch):
    use_test_services(settings)
    monkeypatch.setattr(single, "LOOKUP_BACKOFF", 0.0)


def add_button(page: str) -> re.Match | None:
    return re.search(r'<button type="submit" form="add-by-link" name="link" value="([^"]+)"', page)


@pytest.mark.parametrize("headers", [OTHER_SITE, {}], ids=["from another site", "no referer"])
def test_a_members_get_with_a_doi_imports_nothing_and_asks_nothing_outside(client, user, headers):
    client.force_login(user)
    before = row_counts()
    with respx.mock(assert_all_called=False) as outside:
        crossref = outside.get(f"{CROSSREF}/works/{DOI}").mock(
            return_value=httpx.Response(200, json=crossref_work())
        )
        response = client.get(LIST, {"q": f"https://doi.org/{DOI}"}, **headers)

    assert not crossref.called and not outside.calls
    assert row_counts() == before
    assert not Paper.objects.exists() and not ImportRun.objects.exists()
    # What the page offers instead: one button, the member's to press.
    assert response.status_code == 200
    page = response.content.decode()
    assert f"“https://doi.org/{DOI}” is not in the catalogue yet." in page
    button = add_button(page)
    assert button is not None and button.group(1) == f"https://doi.org/{DOI}"
    assert "Add from Crossref" in page
    assert f'<form id="add-by-link" method="post" action="{ADD}">' in page


@respx.mock
def test_the_confirmations_post_adds_the_paper_and_opens_it(client, user):
    route = respx.get(f"{CROSSREF}/works/{DOI}").mock(
        return_value=httpx.Response(200, json=crossref_work())
    )
    client.force_login(user)
    link = add_button(client.get(LIST, {"q": DOI}).content.decode()).group(1)

    posted = client.post(ADD, {"link": link})
    assert posted.status_code == 303 and not route.called  # queued: the worker fetches it
    run_worker()
    response = client.get(posted["Location"])

    assert route.call_count == 1
    paper = Paper.objects.get(doi=DOI)
    assert response.status_code == 302 and response["Location"] == paper.get_absolute_url()
    run = ImportRun.objects.get()
    assert (run.user, run.invoked_by) == (user, f"link ({user})")


def test_the_post_needs_the_sites_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    make_paper("Known", doi=DOI)  # no request either way: the refusal is the token's

    forged = client.post(ADD, {"link": DOI})
    page = client.get(LIST, {"q": "arXiv:2402.01234"}).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    sent = client.post(ADD, {"link": DOI, "csrfmiddlewaretoken": token})

    assert forged.status_code == 403
    assert sent.status_code == 303  # positive control: the page's own form gets through


@respx.mock
def test_a_visitor_is_told_members_can_add_it_and_cannot_post(client):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(SCHRODINGER))

    page = client.get(LIST, {"q": "2402.01234"}).content.decode()
    posted = client.post(ADD, {"link": "2402.01234"})

    assert "Members can add it from arXiv" in page and add_button(page) is None
    assert posted.status_code == 302 and posted["Location"].startswith(reverse("login"))
    assert not route.called and not Paper.objects.exists()


@respx.mock
def test_a_paper_the_catalogue_has_opens_without_a_request(client, user):
    route = respx.get(f"{CROSSREF}/works/{DOI}").mock(return_value=httpx.Response(500))
    paper = make_paper("Known", doi=DOI)
    client.force_login(user)

    response = client.get(LIST, {"q": f"https://doi.org/{DOI}"}, **OTHER_SITE)

    assert response.status_code == 302 and response["Location"] == paper.get_absolute_url()
    assert not route.called


@respx.mock
def test_a_lookup_that_fails_says_so_on_the_search_page(client, user):
    respx.get(f"{CROSSREF}/works/{DOI}").mock(return_value=httpx.Response(503))
    client.force_login(user)

    posted = client.post(ADD, {"link": DOI})
    run_worker()
    page = client.get(posted["Location"]).content.decode()

    assert "Crossref did not answer; try again later." in page
    # Trying again is a search for the link, whose page offers the button again.
    assert f'<a href="{LIST}?q={quote(DOI, safe="")}">Try again</a>' in page
    assert add_button(client.get(LIST, {"q": DOI}).content.decode()) is not None
    assert not Paper.objects.exists()


# --- The member's share of lookups --------------------------------------------------------


def three_adds(client, reading_list) -> list:
    """Three papers not yet here, through each place that adds by link."""
    link_box = {"reading_list": reading_list.pk, "paper": "2402.00003"}
    return [
        client.post(ADD, {"link": "2402.00001"}),
        client.post(
            reverse("annotations:list-item-add", args=[reading_list.pk]), {"paper": "2402.00002"}
        ),
        client.post(reverse("annotations:triage-link"), link_box),
    ]


@respx.mock
def test_past_its_share_per_minute_a_member_is_answered_429_with_a_message(client, user, settings):
    settings.LINK_LOOKUPS_PER_MINUTE = 2
    route = respx.get(ARXIV).mock(return_value=arxiv_answer())  # arXiv has none of them
    reading_list = make_reading_list(user)
    client.force_login(user)

    answers = three_adds(client, reading_list)
    run_worker()

    # Counted when queued, whatever the lookup finds (here arXiv has no such paper).
    assert [answer.status_code for answer in answers[:2]] == [303, 303]
    assert answers[2].status_code == 429
    assert "You have added 2 papers by link in the last minute" in answers[2].content.decode()
    assert answers[2]["Retry-After"] == "60"
    assert route.call_count == 2  # the third queued nothing
    # Each other place answers 429 too once the share is used up.
    for answer in three_adds(client, reading_list):
        assert answer.status_code == 429
    run_worker()
    assert route.call_count == 2
    # Positive controls: a paper already here is added at once; another member has their own.
    known = make_paper("Known", arxiv_id="2402.09999")
    added = client.post(
        reverse("annotations:list-item-add", args=[reading_list.pk]), {"paper": "2402.09999"}
    )
    assert added.status_code == 302 and reading_list.items.filter(paper=known).exists()
    client.force_login(make_user("another"))
    assert client.post(ADD, {"link": "2402.00004"}).status_code == 303
    run_worker()
    assert route.call_count == 3


@respx.mock
def test_past_its_share_per_hour_a_member_is_answered_429(client, user, settings):
    settings.LINK_LOOKUPS_PER_HOUR = 1
    respx.get(ARXIV).mock(return_value=arxiv_answer())
    client.force_login(user)

    first = client.post(ADD, {"link": "2402.00001"})
    second = client.post(ADD, {"link": "2402.00002"})

    assert first.status_code == 303
    assert second.status_code == 429
    assert "You have added 1 papers by link in the last hour" in second.content.decode()


# --- Bounded in time ------------------------------------------------------------------------


def test_a_lookup_answered_a_byte_at_a_time_ends_at_its_deadline(settings):
    """Crossref stood in for by a server that trickles its answer for ever: without a total
    deadline each read gets its bytes in time and the lookup never ends."""
    settings.LINK_LOOKUP_DEADLINE = 2
    outcome: list[BaseException] = []

    def look_up() -> None:
        try:
            single._fetch(parse_identifier(DOI))
        except BaseException as error:  # noqa: BLE001 - handed to the test's thread
            outcome.append(error)

    with PdfServer() as server:
        # Crossref is asked for the DOI as one path segment (papers.sources.crossref).
        server.routes[f"/works/{quote(DOI, safe='')}"] = server.routes["/slow.pdf"]
        settings.CROSSREF_API_URL = server.base
        started = time.monotonic()
        lookup = threading.Thread(target=look_up, daemon=True)
        lookup.start()
        lookup.join(timeout=20)
        elapsed = time.monotonic() - started
        assert not lookup.is_alive(), "the lookup was still reading after 20 s"

    assert isinstance(outcome[0], single.ServiceUnavailable)
    assert outcome[0].message == "Crossref did not answer in time; try again later."
    assert 1.5 < elapsed < 10  # the deadline (2 s), with room for a loaded machine


@respx.mock
def test_a_lookup_whose_arxiv_turn_is_far_off_is_refused_not_held(client, user, settings):
    settings.ARXIV_API_DELAY = 3
    settings.ARXIV_LOOKUP_MAX_WAIT = 1
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(SCHRODINGER))
    client.force_login(user)
    # A fetch of the site's (another worker) has taken arXiv's turns for the next seconds.
    for _ in range(4):
        assert claim_turn("arXiv", 3.0, time.time(), None) is not None

    posted = client.post(ADD, {"link": "2402.01234"})
    run_worker()
    response = client.get(posted["Location"])

    assert "arXiv is busy, try again in a moment." in response.content.decode()
    assert not route.called and not Paper.objects.exists()
