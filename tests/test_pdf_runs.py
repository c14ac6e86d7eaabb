"""A feed's bulk PDF download (issue 38, point 2; pdfs.bulk): opt-in per feed, counted and
sized on a page before it starts (a POST starts it), capped per run, fetched in small batches
on the bulk queue with its progress on the run, stopped within one batch, and ended failed
(resumable) when a stopped worker's batch is not taken up again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from operations import heartbeats
from papers.models import Feed, SourceRecord
from pdfs import bulk
from pdfs.models import PaperPdf, PdfRun
from tests.factories import make_paper, make_user
from tests.pdf_server import GOOD_PDF, PdfServer

pytestmark = pytest.mark.django_db

VENUE = "ICLR.cc/2025/Conference"


@pytest.fixture
def server(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    with PdfServer() as server:
        settings.PDF_FETCH_HOSTS = [server.base]
        yield server


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(bulk, "BATCH_SIZE", 2)


def make_feed(**fields) -> Feed:
    return Feed.objects.create(kind=Feed.Kind.OPENREVIEW, target=VENUE, name="ICLR", **fields)


def venue_papers(count: int, url: str) -> list[int]:
    """`count` papers the venue brought, each with a PDF link `url` and no PDF yet."""
    ids = []
    for _ in range(count):
        paper = make_paper(pdf_url=url)
        SourceRecord.objects.create(
            source=f"openreview:{VENUE}", key=paper.forum_id, paper=paper, digest="d"
        )
        ids.append(paper.pk)
    return ids


def batch_tasks() -> list[list]:
    tasks = DBTaskResult.objects.filter(task_path=bulk.fetch_pdf_run_batch.module_path)
    return [row.args_kwargs["args"] for row in tasks.filter(status="READY").order_by("enqueued_at")]


def run_queued_batches(limit: int = 20) -> None:
    """What the bulk queue's worker does: each queued batch in turn (each queues the next)."""
    for _ in range(limit):
        ready = DBTaskResult.objects.filter(
            task_path=bulk.fetch_pdf_run_batch.module_path, status="READY"
        ).first()
        if ready is None:
            return
        DBTaskResult.objects.filter(pk=ready.pk).update(status="SUCCESSFUL")
        bulk.run_batch(*ready.args_kwargs["args"])


# Opt-in, capped.


def test_a_feed_without_download_pdfs_starts_no_run_after_a_fetch():
    feed = make_feed()
    added = venue_papers(3, "http://127.0.0.1:9/a.pdf")
    assert bulk.start_after_fetch(feed.pk, added) is None
    assert not PdfRun.objects.exists() and batch_tasks() == []


def test_a_feed_with_download_pdfs_starts_a_run_over_what_it_added_within_its_cap():
    feed = make_feed(download_pdfs=True, pdf_run_cap=3)
    venue_papers(2, "http://127.0.0.1:9/old.pdf")  # brought by an earlier fetch: not this run's
    added = venue_papers(5, "http://127.0.0.1:9/new.pdf")

    run = bulk.start_after_fetch(feed.pk, added)

    assert run is not None and run.paper_ids == added[:3] and run.papers_total == 3
    assert (run.status, run.started_by) == (PdfRun.Status.QUEUED, None)
    assert batch_tasks() == [[run.pk, 0]]
    task = DBTaskResult.objects.get()
    assert (task.queue_name, task.priority) == ("bulk", -50)


# The confirmation page.


@pytest.fixture
def curator(client):
    user = make_user("curator", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            codename__in=["view_feed", "change_feed", "view_pdfrun", "add_pdfrun", "change_pdfrun"]
        )
    )
    client.force_login(user)
    return user


def start_url(feed: Feed) -> str:
    return reverse("admin:pdfs_pdfrun_start", args=[feed.pk])


def test_the_start_page_shows_the_count_and_a_default_size_and_starts_nothing(client, curator):
    feed = make_feed(pdf_run_cap=500)
    venue_papers(3, "http://127.0.0.1:9/a.pdf")

    response = client.get(start_url(feed))

    body = response.content.decode()
    assert response.status_code == 200
    assert "3 PDFs would be downloaded, about 5.7 MB" in body
    assert "1.9 MB each, a default: no PDF is stored yet to measure" in body
    assert 'method="post"' in body
    assert not PdfRun.objects.exists() and not DBTaskResult.objects.exists()


def test_the_start_page_estimates_from_the_stored_pdfs_and_says_the_cap(client, curator):
    feed = make_feed(pdf_run_cap=2)
    venue_papers(5, "http://127.0.0.1:9/a.pdf")
    for size in (1_000_000, 3_000_000):  # other papers' fetched PDFs: a mean of 2,000,000 bytes
        PaperPdf.objects.create(
            paper=make_paper(), file="x.pdf", sha256="0" * 64, size=size,
            source_url="http://127.0.0.1:9/x.pdf", fetched_at=timezone.now(),
        )  # fmt: skip

    body = client.get(start_url(feed)).content.decode()

    assert "5 papers of this feed have a PDF link and no PDF" in body
    assert "A run fetches at most 2 (the feed's cap)" in body
    assert "2 PDFs would be downloaded, about 3.8 MB" in body
    assert "the mean of the PDFs stored" in body


def test_starting_a_run_is_a_post_by_a_curator_who_may(client, curator):
    feed = make_feed()
    ids = venue_papers(2, "http://127.0.0.1:9/a.pdf")

    response = client.post(start_url(feed))

    [run] = PdfRun.objects.all()
    assert response.status_code == 302
    assert response["Location"].endswith(f"?feed__id__exact={feed.pk}")
    assert (run.paper_ids, run.started_by) == (ids, curator)
    assert batch_tasks() == [[run.pk, 0]]
    # A second start while it is in progress starts nothing.
    client.post(start_url(feed))
    assert PdfRun.objects.count() == 1


def test_a_staff_member_without_the_permission_may_not_start_a_run(client):
    feed = make_feed()
    venue_papers(1, "http://127.0.0.1:9/a.pdf")
    client.force_login(make_user("staff", is_staff=True))
    assert client.get(start_url(feed)).status_code == 403
    assert client.post(start_url(feed)).status_code == 403
    assert not PdfRun.objects.exists()


def test_the_feed_admin_links_to_the_start_page_and_its_runs(client, curator):
    feed = make_feed()
    body = client.get(reverse("admin:papers_feed_changelist")).content.decode()
    assert start_url(feed) in body
    assert f"{reverse('admin:pdfs_pdfrun_changelist')}?feed__id__exact={feed.pk}" in body
    response = client.post(
        reverse("admin:papers_feed_changelist"),
        {"action": "download_pdfs_now", "_selected_action": [feed.pk]},
    )
    assert response.status_code == 302 and response["Location"] == start_url(feed)


# Batches, progress, failures.


def test_a_run_fetches_in_batches_and_records_its_progress(server, small_batches, client, curator):
    feed = make_feed()
    good = venue_papers(3, server.url("/good.pdf"))
    missing = venue_papers(1, server.url("/missing.pdf"))
    run = bulk.start_run(feed)
    # A PDF stored by other means before its batch comes: skipped.
    PaperPdf.objects.create(
        paper_id=good[2], file="y.pdf", sha256="1" * 64, size=5,
        source_url=server.url("/good.pdf"), fetched_at=timezone.now(),
    )  # fmt: skip
    assert run.paper_ids == good + missing

    bulk.run_batch(run.pk, 0)
    run.refresh_from_db()
    assert (run.status, run.position, run.papers_done, run.bytes_fetched) == (
        PdfRun.Status.RUNNING,
        2,
        2,
        2 * len(GOOD_PDF),
    )
    assert run.held_by == "" and batch_tasks() == [[run.pk, 0], [run.pk, 2]]

    DBTaskResult.objects.all().delete()
    bulk.run_batch(run.pk, 2)
    run.refresh_from_db()
    assert run.status == PdfRun.Status.FINISHED and run.finished_at is not None
    assert (run.papers_done, run.papers_failed, run.papers_skipped) == (2, 1, 1)
    assert batch_tasks() == []
    body = client.get(reverse("admin:pdfs_pdfrun_changelist")).content.decode()
    assert "4 of 4: 2 fetched, 1 failed, 1 skipped" in body and "finished" in body


def test_a_batch_done_again_does_not_ask_a_link_refused_in_the_run(server, small_batches):
    feed = make_feed()
    ids = venue_papers(1, server.url("/missing.pdf")) + venue_papers(1, server.url("/good.pdf"))
    run = bulk.start_run(feed)
    bulk.run_batch(run.pk, 0)
    # As if the batch's worker had stopped before recording it: the batch is done again.
    PdfRun.objects.filter(pk=run.pk).update(position=0, status=PdfRun.Status.RUNNING)

    bulk.run_batch(run.pk, 0)

    assert server.hits["/missing.pdf"] == 1 and server.hits["/good.pdf"] == 1
    run.refresh_from_db()
    assert run.papers_skipped == 2 and PaperPdf.objects.filter(paper_id=ids[1]).exists()


def test_a_stale_batch_does_nothing(server, small_batches):
    venue_papers(4, server.url("/good.pdf"))
    run = bulk.start_run(make_feed())
    bulk.run_batch(run.pk, 0)
    assert bulk.run_batch(run.pk, 0) == "nothing to do"  # the same batch queued twice
    assert server.hits["/good.pdf"] == 2


# Stop.


def test_stop_between_batches_stops_at_once_and_the_queued_batch_fetches_nothing(
    server, small_batches, client, curator
):
    venue_papers(6, server.url("/good.pdf"))
    run = bulk.start_run(make_feed())
    run_queued_batches(limit=1)

    response = client.post(
        reverse("admin:pdfs_pdfrun_changelist"), {"action": "stop", "_selected_action": [run.pk]}
    )
    run_queued_batches()

    assert response.status_code == 302
    run.refresh_from_db()
    assert (run.status, run.position, run.papers_done) == (PdfRun.Status.STOPPED, 2, 2)
    assert server.hits["/good.pdf"] == 2


def test_stop_during_a_batch_ends_the_run_with_that_batch(server, small_batches, monkeypatch):
    venue_papers(6, server.url("/good.pdf"))
    run = bulk.start_run(make_feed())
    fetch = bulk.runs.fetch_pdfs

    def pressed_meanwhile(papers):
        bulk.request_stop(PdfRun.objects.filter(pk=run.pk))
        return fetch(papers)

    monkeypatch.setattr(bulk.runs, "fetch_pdfs", pressed_meanwhile)
    run_queued_batches()

    run.refresh_from_db()
    assert (run.status, run.position, run.papers_done) == (PdfRun.Status.STOPPED, 2, 2)
    assert server.hits["/good.pdf"] == 2


# A stopped worker.


def _interrupt(row: DBTaskResult, worker: str) -> None:
    row.claim(worker)
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=timezone.now() - timedelta(minutes=5))


def test_a_run_whose_batch_was_interrupted_twice_ends_failed_and_resumes(
    server, small_batches, client, curator
):
    venue_papers(3, server.url("/good.pdf"))
    run = bulk.start_run(make_feed())
    # The worker took the first batch, claimed the run and stopped.
    _interrupt(DBTaskResult.objects.get(), "first")
    PdfRun.objects.filter(pk=run.pk).update(
        status=PdfRun.Status.RUNNING, held_by="first", held_until=timezone.now()
    )
    assert heartbeats.sweep().resumed  # queued again once
    [again] = DBTaskResult.objects.filter(status="READY")
    _interrupt(again, "second")

    assert heartbeats.sweep().failed == [str(again.pk)]

    run.refresh_from_db()
    assert (run.status, run.error, run.held_by) == (PdfRun.Status.FAILED, bulk.INTERRUPTED, "")
    assert (
        "failed (resumable)" in client.get(reverse("admin:pdfs_pdfrun_changelist")).content.decode()
    )
    client.post(
        reverse("admin:pdfs_pdfrun_changelist"), {"action": "resume", "_selected_action": [run.pk]}
    )
    run_queued_batches()
    run.refresh_from_db()
    assert (run.status, run.papers_done) == (PdfRun.Status.FINISHED, 3)
