"""Adding a paper by its link outside the request (issue 38, point 3): a member's POST opens a
paper the catalogue has, else records the request, queues its task on the default queue at a
member's priority and answers at once with the request's page; the worker fetches and adds the
paper; the page follows it (htmx every second) and then opens the paper, or the reading list it
was asked for. Outside services are replayed by respx; the worker runs here in batch mode."""

from __future__ import annotations

import re

import httpx
import pytest
import respx
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from annotations.models import ListAdditionByLink
from operations.queues import DEFAULT_QUEUE, MEMBER_PRIORITY
from papers import link_fetches
from papers.models import ImportRun, LinkFetch, Paper
from papers.signals import link_fetch_finished
from papers.sources import single
from tests.factories import make_paper, make_reading_list
from tests.link_lookup_helpers import (
    CROSSREF,
    DOI,
    crossref_work,
    run_worker,
    use_test_services,
)

pytestmark = pytest.mark.django_db

ADD = reverse("papers:add-by-link")
HTMX = {"HTTP_HX_REQUEST": "true"}
WORK = f"{CROSSREF}/works/{DOI}"


@pytest.fixture(autouse=True)
def outside_services(settings, monkeypatch):
    use_test_services(settings)
    monkeypatch.setattr(single, "LOOKUP_BACKOFF", 0.0)


def crossref_knows_the_paper(mock) -> respx.Route:
    return mock.get(WORK).mock(return_value=httpx.Response(200, json=crossref_work()))


def polls(page: str) -> bool:
    return 'hx-trigger="every 1s"' in page


# --- The POST queues and answers at once ------------------------------------------------------


def test_a_members_post_queues_the_fetch_and_answers_at_once(client, user):
    client.force_login(user)
    with respx.mock(assert_all_called=False) as outside:  # no route: any request would raise
        response = client.post(ADD, {"link": f"https://doi.org/{DOI}"})

    assert not outside.calls
    fetch = LinkFetch.objects.get()
    assert response.status_code == 303 and response["Location"] == fetch.get_absolute_url()
    assert (fetch.requested_by, fetch.kind, fetch.value) == (user, "doi", DOI)
    assert fetch.status == LinkFetch.Status.QUEUED
    task = DBTaskResult.objects.get()
    assert (task.queue_name, task.priority, task.status) == (
        DEFAULT_QUEUE,
        MEMBER_PRIORITY,
        "READY",
    )
    assert str(task.id).replace("-", "") == fetch.task_id.replace("-", "")
    assert not Paper.objects.exists() and not ImportRun.objects.exists()


def test_a_paper_the_catalogue_has_opens_at_once_and_queues_nothing(client, user):
    paper = make_paper("Known", doi=DOI)
    client.force_login(user)

    response = client.post(ADD, {"link": DOI})

    assert response.status_code == 303 and response["Location"] == paper.get_absolute_url()
    assert not LinkFetch.objects.exists() and not DBTaskResult.objects.exists()


def test_the_worker_adds_the_paper_and_the_page_then_opens_it(client, user):
    client.force_login(user)
    page_url = client.post(ADD, {"link": DOI})["Location"]
    waiting = client.get(page_url).content.decode()
    assert "Waiting for a worker to fetch it from Crossref" in waiting
    assert polls(waiting) and f'href="{page_url}">Reload</a>' in waiting

    with respx.mock() as outside:
        route = crossref_knows_the_paper(outside)
        run_worker()

    assert route.call_count == 1
    paper = Paper.objects.get(doi=DOI)
    run = ImportRun.objects.get()
    assert (run.user, run.invoked_by) == (user, f"link ({user})")
    assert DBTaskResult.objects.get().status == "SUCCESSFUL"
    polled = client.get(page_url, **HTMX)
    assert polled.status_code == 200 and polled["HX-Redirect"] == paper.get_absolute_url()
    reloaded = client.get(page_url)  # without JavaScript
    assert reloaded.status_code == 302 and reloaded["Location"] == paper.get_absolute_url()


def test_a_failed_lookup_shows_its_message_and_the_way_to_try_again(client, user):
    client.force_login(user)
    page_url = client.post(ADD, {"link": "doi:10.9999/nothing.here"})["Location"]

    with respx.mock() as outside:
        outside.get(f"{CROSSREF}/works/10.9999/nothing.here").mock(
            return_value=httpx.Response(404, text="Resource not found.")
        )
        run_worker()

    for headers in ({}, HTMX):
        page = client.get(page_url, **headers).content.decode()
        assert "Crossref has no paper 10.9999/nothing.here." in page
        assert not polls(page)  # the page stops asking
        assert '<a href="/?q=doi%3A10.9999%2Fnothing.here">Try again</a>' in page
    assert not Paper.objects.exists()


def test_a_task_failed_by_a_workers_death_shows_failed(client, user):
    client.force_login(user)
    page_url = client.post(ADD, {"link": DOI})["Location"]
    assert polls(client.get(page_url, **HTMX).content.decode())  # positive control

    # What a worker's restart leaves (operations' interrupted tasks): the task failed, the
    # request never recorded an outcome.
    DBTaskResult.objects.update(status="FAILED")
    page = client.get(page_url, **HTMX).content.decode()

    assert link_fetches.WORKER_STOPPED in page and not polls(page)
    assert LinkFetch.objects.get().status == LinkFetch.Status.QUEUED  # the GET wrote nothing


def test_a_worker_whose_claim_lapsed_is_shown_stopped(client, user):
    client.force_login(user)
    page_url = client.post(ADD, {"link": DOI})["Location"]
    fetch = LinkFetch.objects.get()
    LinkFetch.objects.filter(pk=fetch.pk).update(
        status=LinkFetch.Status.RUNNING, held_by="gone", held_until=fetch.created_at
    )

    page = client.get(page_url).content.decode()

    assert link_fetches.WORKER_STOPPED in page and not polls(page)


def test_the_page_is_its_members_only(client, user, other_user):
    client.force_login(user)
    page_url = client.post(ADD, {"link": DOI})["Location"]
    assert client.get(page_url).status_code == 200  # positive control

    client.force_login(other_user)
    assert client.get(page_url).status_code == 404
    client.logout()
    visitor = client.get(page_url)
    assert visitor.status_code == 302 and visitor["Location"].startswith(reverse("login"))


def test_past_the_members_share_a_post_is_429_and_queues_nothing(client, user, settings):
    settings.LINK_LOOKUPS_PER_MINUTE = 1
    client.force_login(user)

    first = client.post(ADD, {"link": "2402.00001"})
    second = client.post(ADD, {"link": "2402.00002"})

    assert first.status_code == 303
    assert second.status_code == 429 and second["Retry-After"] == "60"
    assert "You have added 1 papers by link in the last minute" in second.content.decode()
    assert LinkFetch.objects.count() == 1 and DBTaskResult.objects.count() == 1


# --- One fetch for two members ----------------------------------------------------------------


def test_two_members_asking_for_one_paper_share_its_fetch(client, user, other_user):
    client.force_login(user)
    first_page = client.post(ADD, {"link": DOI})["Location"]
    client.force_login(other_user)
    reading_list = make_reading_list(other_user, "Tools")
    list_add = reverse("annotations:list-item-add", args=[reading_list.pk])
    second_page = client.post(list_add, {"paper": f"https://doi.org/{DOI}"})["Location"]

    first, second = LinkFetch.objects.order_by("pk")
    assert second.leader == first and second.task_id == first.task_id
    assert DBTaskResult.objects.count() == 1  # one task for both
    with respx.mock() as outside:
        route = crossref_knows_the_paper(outside)
        run_worker()

    assert route.call_count == 1
    paper = Paper.objects.get(doi=DOI)
    second.refresh_from_db()
    assert (second.status, second.paper) == (LinkFetch.Status.DONE, paper)
    assert list(reading_list.items.values_list("paper", flat=True)) == [paper.pk]
    assert client.get(second_page, **HTMX)["HX-Redirect"] == reading_list.get_absolute_url()
    client.force_login(user)
    assert client.get(first_page, **HTMX)["HX-Redirect"] == paper.get_absolute_url()


def test_a_request_after_the_fetch_failed_queues_a_new_one(client, user, other_user):
    client.force_login(user)
    client.post(ADD, {"link": DOI})
    DBTaskResult.objects.update(status="FAILED")  # its worker died
    client.force_login(other_user)

    client.post(ADD, {"link": DOI})

    first, second = LinkFetch.objects.order_by("pk")
    assert second.leader is None and DBTaskResult.objects.count() == 2
    assert first.status == LinkFetch.Status.FAILED  # the POST marked it (a GET never does)


# --- A reading list's "Add paper" box ---------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_a_list_box_link_goes_on_the_list_once_fetched(client, user, headers):
    reading_list = make_reading_list(user, "To read")
    client.force_login(user)

    with respx.mock(assert_all_called=False) as outside:
        response = client.post(
            reverse("annotations:list-item-add", args=[reading_list.pk]),
            {"paper": f"https://doi.org/{DOI}"},
            **headers,
        )
    assert not outside.calls
    fetch = LinkFetch.objects.get()
    if headers:
        assert response["HX-Redirect"] == fetch.get_absolute_url()
    else:
        assert response.status_code == 303 and response["Location"] == fetch.get_absolute_url()
    assert not reading_list.items.exists()
    assert ListAdditionByLink.objects.get().reading_list == reading_list

    with respx.mock() as outside:
        crossref_knows_the_paper(outside)
        run_worker()

    paper = Paper.objects.get(doi=DOI)
    assert list(reading_list.items.values_list("paper", flat=True)) == [paper.pk]
    assert not ListAdditionByLink.objects.exists()
    link_fetch_finished.send(LinkFetch, fetch_ids=[fetch.pk])  # sent again: nothing more
    assert reading_list.items.count() == 1
    assert client.get(fetch.get_absolute_url(), **HTMX)["HX-Redirect"] == (
        reading_list.get_absolute_url()
    )


def test_a_list_box_link_that_fails_adds_nothing_and_says_why(client, user):
    reading_list = make_reading_list(user)
    client.force_login(user)
    page_url = client.post(
        reverse("annotations:list-item-add", args=[reading_list.pk]), {"paper": DOI}
    )["Location"]

    with respx.mock() as outside:
        outside.get(WORK).mock(return_value=httpx.Response(503))
        run_worker()

    page = client.get(page_url).content.decode()
    assert "Crossref did not answer; try again later." in page
    assert f'<a href="{reading_list.get_absolute_url()}">Try again</a>' in page
    assert not reading_list.items.exists() and not ListAdditionByLink.objects.exists()


# --- The search boxes take a link (issue 39, point 1) -----------------------------------------


def test_a_doi_sent_from_the_home_box_with_htmx_opens_its_paper(client, user):
    paper = make_paper("Known", doi=DOI)
    client.force_login(user)

    response = client.get("/", {"q": f"https://doi.org/{DOI}"}, **HTMX)

    assert response.status_code == 200 and response["HX-Redirect"] == paper.get_absolute_url()


def test_a_doi_being_typed_names_its_paper_and_the_page_stays(client):
    paper = make_paper("Known paper", doi=DOI)

    response = client.get("/", {"q": DOI, "typing": "1"}, **HTMX)

    assert "HX-Redirect" not in response
    page = response.content.decode()
    assert f'“{DOI}” is <a href="{paper.get_absolute_url()}">Known paper</a>.' in page


def test_a_visitor_is_told_to_log_in_to_fetch_a_paper_not_here(client):
    with respx.mock(assert_all_called=False) as outside:
        page = client.get("/", {"q": DOI}, **HTMX).content.decode()

    assert not outside.calls and not LinkFetch.objects.exists()
    assert "Members can add it from Crossref" in page and "to fetch it." in page
    login = re.search(r'<a href="([^"]+)">log in</a>', page)
    assert login is not None
    assert login.group(1) == "/accounts/login/?next=%2F%3Fq%3D10.1145%252F3292500.3330701"


def test_a_members_search_offers_the_button_that_queues_it(client, user):
    client.force_login(user)

    page = client.get("/", {"q": DOI}, **HTMX).content.decode()

    assert f'name="link" value="{DOI}"' in page and "Add from Crossref" in page
    assert not LinkFetch.objects.exists()
