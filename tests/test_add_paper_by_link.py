"""A paper by its link, for every member: the reading list's "Add paper" box and the header
search take an arXiv, OpenReview or DOI link or id; a paper not yet in the catalogue is fetched
by the task worker (arXiv, OpenReview and Crossref replayed by respx from their documented
formats), added as that member's import, and put on the list once added. Nothing here reaches
the internet."""

from __future__ import annotations

import html
import re

import httpx
import pytest
import respx
from django.urls import reverse

from bench.standins import v2_note
from papers.models import ImportRun, Paper
from papers.sources import single
from papers.sources.crossref import jats_text, work_record
from papers.sources.identifiers import Kind, parse_identifier
from tests.factories import make_paper, make_reading_list
from tests.link_lookup_helpers import (
    ARXIV,
    CROSSREF,
    DOI,
    OPENREVIEW,
    OPENREVIEW_V1,
    SCHRODINGER,
    arxiv_answer,
    crossref_work,
    run_worker,
    use_test_services,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def outside_services(settings, monkeypatch):
    use_test_services(settings)
    # A retry after no wait: the tests see the tries, not the backoff.
    monkeypatch.setattr(single, "LOOKUP_BACKOFF", 0.0)


def add_paper_form(client, reading_list) -> tuple[str, str]:
    """The list page's own "Add paper" form: its action and its text field's name."""
    page = client.get(reading_list.get_absolute_url()).content.decode()
    form = re.search(r'<form class="add-paper"[^>]*>.*?</form>', page, re.DOTALL)
    assert form is not None
    action = html.unescape(re.search(r'action="([^"]+)"', form.group(0)).group(1))
    assert f'hx-post="{action}"' in form.group(0)
    names = re.findall(r'<input[^>]*type="text"[^>]*name="([^"]+)"', form.group(0))
    names += re.findall(r'<input[^>]*name="([^"]+)"[^>]*type="text"', form.group(0))
    assert len(set(names)) == 1
    return action, names[0]


def add_through_the_page(client, reading_list, typed: str, **headers):
    """Send the box as the page does; a paper not yet here is fetched by the worker, and the
    page the member is sent to is followed (the list once it is added, else the fetch's page
    saying why not)."""
    action, field = add_paper_form(client, reading_list)
    posted = client.post(action, {field: typed}, **headers)
    fetch_page = posted.get("HX-Redirect") or (
        posted["Location"] if posted.status_code == 303 else None
    )
    if fetch_page is None:  # put on the list, or refused, at once
        return client.get(posted["Location"]) if posted.status_code == 302 else posted
    run_worker()
    return client.get(fetch_page, follow=True, **headers)


# --- Parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "kind", "value"),
    [
        ("https://arxiv.org/abs/2402.01234v2", Kind.ARXIV, "2402.01234"),
        ("arxiv.org/pdf/2402.01234v3.pdf", Kind.ARXIV, "2402.01234"),
        ("https://arxiv.org/pdf/2402.01234", Kind.ARXIV, "2402.01234"),
        ("arXiv:2402.01234", Kind.ARXIV, "2402.01234"),
        ("http://export.arxiv.org/abs/hep-th/9901001v1", Kind.ARXIV, "hep-th/9901001"),
        ("hep-th/9901001", Kind.ARXIV, "hep-th/9901001"),
        ("https://openreview.net/forum?id=Zg8ygQlHhl", Kind.OPENREVIEW, "Zg8ygQlHhl"),
        ("https://openreview.net/pdf?id=SyZipzbCb", Kind.OPENREVIEW, "SyZipzbCb"),
        ("Zg8ygQlHhl", Kind.OPENREVIEW, "Zg8ygQlHhl"),
        (DOI, Kind.DOI, DOI),
        (f"doi:{DOI}", Kind.DOI, DOI),
        ("https://doi.org/10.1038/NATURE12373", Kind.DOI, "10.1038/nature12373"),
    ],
)
def test_links_and_ids_name_their_paper(typed, kind, value):
    identifier = parse_identifier(typed)
    assert identifier is not None
    assert (identifier.kind, identifier.value) == (kind, value)


@pytest.mark.parametrize(
    "typed",
    ["transformers", "BatchNorm", "12345678", "https://example.com/forum?id=Zg8ygQlHhl", ""],
)
def test_words_and_other_sites_name_no_outside_paper(typed):
    assert parse_identifier(typed) is None


def test_a_crossref_work_becomes_a_record():
    record = work_record(crossref_work()["message"], "crossref", 1)
    assert record.title == "Optuna: A Next-generation Hyperparameter Optimization Framework"
    assert record.authors == ["Takuya Akiba", "Shotaro Sano", "The Optuna Consortium"]
    assert record.year == 2019
    assert record.doi == DOI.upper()  # the loader's validation lowers it
    assert record.pdf_url == "https://dl.acm.org/doi/pdf/10.1145/3292500.3330701"
    assert record.abstract == (
        "The purpose of this study is to introduce new design-criteria for next-generation "
        "hyperparameter optimization software.\n\nSecond & last."
    )
    assert record.tags  # the proceedings, as a reference's booktitle is read


def test_jats_without_paragraphs_is_its_text():
    assert jats_text("A <jats:sub>2</jats:sub> plain abstract") == "A 2 plain abstract"


# --- The reading list's "Add paper" box -------------------------------------------------------


@respx.mock
def test_a_member_adds_a_paper_by_its_arxiv_link(client, user):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(SCHRODINGER))
    reading_list = make_reading_list(user, "To read")
    client.force_login(user)

    response = add_through_the_page(client, reading_list, "https://arxiv.org/abs/2402.01234v2")

    assert route.call_count == 1
    assert dict(route.calls.last.request.url.params) == {
        "id_list": "2402.01234",
        "max_results": "1",
    }
    paper = Paper.objects.get(arxiv_id="2402.01234")
    assert paper.title == "Schrödinger bridges for Lévy processes"
    assert "Erdős" in paper.abstract
    assert paper.author_names == "Zoë Müller, Jürgen Schmidhuber"
    assert [item.paper for item in reading_list.items.all()] == [paper]
    assert "Schrödinger bridges for Lévy processes" in response.content.decode()  # the list
    run = ImportRun.objects.get()
    assert run.user == user
    assert run.invoked_by == f"Add paper to a reading list ({user})"


@respx.mock
def test_a_member_adds_a_paper_by_its_doi_with_htmx(client, user):
    route = respx.get(f"{CROSSREF}/works/{DOI}").mock(
        return_value=httpx.Response(200, json=crossref_work())
    )
    reading_list = make_reading_list(user, "Tools")
    client.force_login(user)

    response = add_through_the_page(
        client, reading_list, f"https://doi.org/{DOI}", HTTP_HX_REQUEST="true"
    )

    assert route.call_count == 1
    # The fetch's page, polled by htmx, sends the browser back to the list.
    assert response["HX-Redirect"] == reading_list.get_absolute_url()
    paper = Paper.objects.get(doi=DOI)
    assert paper.author_names == "Takuya Akiba, Shotaro Sano, The Optuna Consortium"
    assert list(reading_list.items.values_list("paper", flat=True)) == [paper.pk]
    assert ImportRun.objects.get().user == user


@respx.mock
def test_a_member_adds_a_paper_by_its_openreview_forum_link(client, user):
    note = v2_note("Zg8ygQlHhl", "Forum Paper")
    route = respx.get(f"{OPENREVIEW}/notes").mock(
        return_value=httpx.Response(200, json={"notes": [note], "count": 1})
    )
    reading_list = make_reading_list(user)
    client.force_login(user)

    add_through_the_page(client, reading_list, "https://openreview.net/forum?id=Zg8ygQlHhl")

    assert dict(route.calls.last.request.url.params) == {"id": "Zg8ygQlHhl", "details": "replies"}
    paper = Paper.objects.get(forum_id="Zg8ygQlHhl")
    assert paper.title == "Forum Paper"
    assert list(reading_list.items.values_list("paper", flat=True)) == [paper.pk]


@respx.mock
def test_a_paper_already_in_the_catalogue_is_not_fetched_again(client, user):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(SCHRODINGER))
    known = make_paper("Known", arxiv_id="2402.01234")
    reading_list = make_reading_list(user)
    client.force_login(user)

    add_through_the_page(client, reading_list, "https://arxiv.org/pdf/2402.01234v1")

    assert not route.called
    assert list(reading_list.items.values_list("paper", flat=True)) == [known.pk]
    assert not ImportRun.objects.exists()


@respx.mock
def test_a_doi_crossref_does_not_know_is_a_form_error(client, user):
    respx.get(f"{CROSSREF}/works/10.9999/nothing.here").mock(
        return_value=httpx.Response(404, text="Resource not found.")
    )
    reading_list = make_reading_list(user)
    client.force_login(user)

    response = add_through_the_page(client, reading_list, "doi:10.9999/nothing.here")

    assert "Crossref has no paper 10.9999/nothing.here." in response.content.decode()
    assert not reading_list.items.exists()
    assert not Paper.objects.exists()


@respx.mock
def test_an_arxiv_id_arxiv_does_not_know_is_a_form_error(client, user):
    respx.get(ARXIV).mock(return_value=arxiv_answer())
    reading_list = make_reading_list(user)
    client.force_login(user)

    response = add_through_the_page(client, reading_list, "2402.99999")

    assert "arXiv has no paper 2402.99999." in response.content.decode()
    assert not Paper.objects.exists()


@respx.mock
def test_crossref_failing_every_try_says_it_did_not_answer(client, user):
    route = respx.get(f"{CROSSREF}/works/{DOI}").mock(
        return_value=httpx.Response(503, text="Service Unavailable")
    )
    reading_list = make_reading_list(user)
    client.force_login(user)

    response = add_through_the_page(client, reading_list, DOI, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert "Crossref did not answer; try again later." in response.content.decode()
    assert route.call_count == single.LOOKUP_TRIES
    assert not Paper.objects.exists()
    assert not ImportRun.objects.exists()


@respx.mock
def test_a_dropped_connection_to_arxiv_is_no_server_error(client, user):
    respx.get(ARXIV).mock(side_effect=httpx.ConnectError("connection refused"))
    reading_list = make_reading_list(user)
    client.force_login(user)

    response = add_through_the_page(client, reading_list, "arXiv:2402.01234")

    assert response.status_code == 200
    assert "arXiv did not answer; try again later." in response.content.decode()


# --- The header search -------------------------------------------------------------------------
# A search opens a paper the catalogue has; one it has not is added by the page's POST button
# (tests/test_add_by_link_post_only.py), never by the search.


@respx.mock
def test_a_members_search_for_an_arxiv_link_offers_it_and_the_button_adds_it(client, user):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(SCHRODINGER))
    client.force_login(user)

    offered = client.get(reverse("papers:list"), {"q": "https://arxiv.org/abs/2402.01234v2"})
    assert not route.called and "Add from arXiv" in offered.content.decode()
    posted = client.post(
        reverse("papers:add-by-link"), {"link": "https://arxiv.org/abs/2402.01234v2"}
    )
    assert posted.status_code == 303 and not route.called  # queued
    run_worker()
    response = client.get(posted["Location"])

    paper = Paper.objects.get(arxiv_id="2402.01234")
    assert response.status_code == 302
    assert response["Location"] == paper.get_absolute_url()
    assert ImportRun.objects.get().user == user


@respx.mock
def test_a_visitors_search_for_an_unknown_arxiv_id_fetches_nothing(client):
    route = respx.get(ARXIV).mock(return_value=arxiv_answer(SCHRODINGER))

    response = client.get(reverse("papers:list"), {"q": "2402.01234"})

    assert response.status_code == 200
    assert not route.called
    assert not Paper.objects.exists()


def test_a_visitors_search_for_a_known_doi_opens_the_paper(client):
    paper = make_paper("Known", doi=DOI)

    response = client.get(reverse("papers:list"), {"q": f"https://doi.org/{DOI}"})

    assert response.status_code == 302
    assert response["Location"] == paper.get_absolute_url()


@respx.mock
def test_an_add_whose_service_fails_says_so_on_the_fetchs_page(client, user):
    respx.get(f"{CROSSREF}/works/{DOI}").mock(return_value=httpx.Response(503))
    client.force_login(user)

    posted = client.post(reverse("papers:add-by-link"), {"link": DOI})
    run_worker()
    response = client.get(posted["Location"])

    assert response.status_code == 200
    assert "Crossref did not answer; try again later." in response.content.decode()


def test_typing_an_identifier_with_htmx_fetches_nothing(client, user):
    client.force_login(user)
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(ARXIV).mock(return_value=arxiv_answer(SCHRODINGER))
        response = client.get(reverse("papers:list"), {"q": "2402.01234"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert not route.called


@respx.mock
def test_a_forum_only_api_v1_has_is_read_from_api_v1_with_its_reviews(client, user):
    respx.get(f"{OPENREVIEW}/notes").mock(return_value=httpx.Response(200, json={"notes": []}))
    paper_note = {
        "id": "SyZipzbCb",
        "forum": "SyZipzbCb",
        "content": {"title": "An Old Paper", "authors": ["Ann One"], "abstract": "Old."},
    }
    review = {
        "id": "rev1",
        "forum": "SyZipzbCb",
        "replyto": "SyZipzbCb",
        "invitation": "ICLR.cc/2018/Conference/-/Paper1/Official_Review",
        "content": {"rating": "7: Good paper, accept", "review": "Fine."},
    }
    v1 = respx.get(f"{OPENREVIEW_V1}/notes").mock(
        return_value=httpx.Response(200, json={"notes": [review, paper_note]})
    )
    reading_list = make_reading_list(user)
    client.force_login(user)

    add_through_the_page(client, reading_list, "https://openreview.net/forum?id=SyZipzbCb")

    assert dict(v1.calls.last.request.url.params) == {"forum": "SyZipzbCb"}
    paper = Paper.objects.get(forum_id="SyZipzbCb")
    assert list(reading_list.items.values_list("paper", flat=True)) == [paper.pk]
    assert paper.reviews.get().rating == 7  # the review came before its paper in the answer


@respx.mock
def test_a_forum_openreview_does_not_have_is_a_form_error(client, user):
    not_found = {"name": "NotFoundError", "message": "The Note Zg8ygQlHhl was not found"}
    respx.get(f"{OPENREVIEW}/notes").mock(return_value=httpx.Response(404, json=not_found))
    respx.get(f"{OPENREVIEW_V1}/notes").mock(return_value=httpx.Response(200, json={"notes": []}))
    reading_list = make_reading_list(user)
    client.force_login(user)

    response = add_through_the_page(client, reading_list, "Zg8ygQlHhl")

    assert "OpenReview has no paper Zg8ygQlHhl." in response.content.decode()
    assert not Paper.objects.exists()
