"""Finding 4 of issue 43: opening a paper's reader page queued a fetch of its PDF for anyone, so
a crawler walking the reader pages queued one download per paper. Now no GET queues anything:
a member's "Fetch the PDF" (a POST) does, counted against a per-member limit and a site-wide
cap on pending fetch tasks. The tasks go to the database backend the site runs, so every
queued fetch is a row the tests count."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from tests.factories import make_paper, make_user
from tests.link_lookup_helpers import row_counts

pytestmark = pytest.mark.django_db

PDF_URL = "https://arxiv.org/pdf/2310.01234"


@pytest.fixture(autouse=True)
def _database_tasks(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def reader_url(paper) -> str:
    return reverse("pdfs:reader", args=[paper.pk])


def fetch_url(paper) -> str:
    return reverse("pdfs:fetch", args=[paper.pk])


def queued() -> list[list[int]]:
    return [task.args_kwargs["args"][0] for task in DBTaskResult.objects.order_by("enqueued_at")]


def test_thirty_visitor_opens_queue_no_fetch_and_write_nothing(client):
    paper = make_paper(pdf_url=PDF_URL)
    before = row_counts()

    pages = [client.get(reader_url(paper)) for _ in range(30)]

    assert row_counts() == before
    assert not DBTaskResult.objects.exists()
    page = pages[-1].content.decode()
    assert pages[-1].status_code == 200
    assert "This paper's PDF is not here yet. Members can fetch it" in page
    assert fetch_url(paper) not in page


def test_a_members_open_queues_nothing_and_offers_the_fetch(client, user):
    paper = make_paper(pdf_url=PDF_URL)
    client.force_login(user)
    before = row_counts()

    page = client.get(reader_url(paper)).content.decode()

    assert row_counts() == before
    assert f'<form method="post" action="{fetch_url(paper)}">' in page
    assert "Fetch the PDF" in page


def test_a_members_fetch_queues_one_download_once(client, user):
    paper = make_paper(pdf_url=PDF_URL)
    client.force_login(user)

    first = client.post(fetch_url(paper))
    again = client.post(fetch_url(paper))

    assert first.status_code == again.status_code == 302
    assert first["Location"] == reader_url(paper)
    assert queued() == [[paper.pk]]  # pressed twice, queued once
    page = client.get(reader_url(paper)).content.decode()
    assert "It has been asked for from its PDF link" in page


def test_a_visitor_cannot_fetch_and_a_get_of_the_fetch_address_queues_nothing(client, user):
    paper = make_paper(pdf_url=PDF_URL)

    visitor = client.post(fetch_url(paper))
    client.force_login(user)
    member_get = client.get(fetch_url(paper))

    assert visitor.status_code == 302 and visitor["Location"].startswith(reverse("login"))
    assert member_get.status_code == 405
    assert not DBTaskResult.objects.exists()


def test_nothing_is_queued_for_a_paper_without_a_link(client, user):
    paper = make_paper(pdf_url="")
    client.force_login(user)
    client.post(fetch_url(paper))
    assert not DBTaskResult.objects.exists()


def test_a_member_past_their_limit_is_told_so_and_others_are_not(client, user, settings):
    settings.PDF_FETCHES_PER_MEMBER = 2
    papers = [make_paper(f"Paper {n}", pdf_url=f"{PDF_URL}{n}") for n in range(3)]
    client.force_login(user)

    answers = [client.post(fetch_url(paper)) for paper in papers]

    assert [answer.status_code for answer in answers] == [302, 302, 429]
    assert "You have asked for 2 PDFs in the last 60 minutes" in answers[2].content.decode()
    assert answers[2]["Retry-After"]
    assert queued() == [[papers[0].pk], [papers[1].pk]]
    # Positive control: another member's share is their own.
    client.force_login(make_user("another"))
    assert client.post(fetch_url(papers[2])).status_code == 302
    assert len(queued()) == 3


def test_the_site_cap_on_pending_fetches_refuses_until_one_is_done(client, user, settings):
    settings.PDF_FETCHES_PENDING = 2
    papers = [make_paper(f"Paper {n}", pdf_url=f"{PDF_URL}{n}") for n in range(3)]
    client.force_login(user)
    for paper in papers[:2]:
        assert client.post(fetch_url(paper)).status_code == 302

    refused = client.post(fetch_url(papers[2]))

    assert refused.status_code == 429
    assert "The site has many PDFs to fetch right now" in refused.content.decode()
    assert len(queued()) == 2
    # Positive control: once one is done, the next is queued.
    DBTaskResult.objects.filter(args_kwargs__args=[[papers[0].pk]]).update(
        status=TaskResultStatus.SUCCESSFUL
    )
    assert client.post(fetch_url(papers[2])).status_code == 302
    assert len(queued()) == 3
