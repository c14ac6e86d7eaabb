"""The work that holds rows by a claim (issue 38, point 1): feeds, export jobs and digests.
A run that outlives its claim and is taken over records nothing over the newer run, and an
export whose worker died ends as failed ("The worker stopped; ask again"), its page no longer
waiting for it."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
import respx
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from alerts import digest
from alerts.models import DigestState
from annotations import export_jobs, tasks
from annotations.models import ExportJob, ExportStatus
from operations import claims
from papers.models import Feed, Paper
from papers.sources import feeds
from tests.export_helpers import poster_track, tag_export
from tests.factories import make_user
from tests.test_alerts_digest import save_search
from tests.test_feeds import serve_venue, venue_feed

pytestmark = pytest.mark.django_db

POLLING = 'hx-trigger="every 3s"'


def taken_over(model, pk: int, lease: timedelta) -> claims.Claim:
    """The next run's claim on a row whose holder's lease has lapsed."""
    row = model.objects.get(pk=pk)
    claim = claims.claim(model, pk, lease, now=row.held_until + timedelta(seconds=1))
    assert claim is not None
    return claim


# --- Feeds ------------------------------------------------------------------------------------


@respx.mock
def test_a_feed_run_that_outlived_its_claim_records_nothing_over_the_next_run(monkeypatch):
    serve_venue()
    feed = venue_feed(name="ICLR")
    real_fetch = feeds._fetch
    newer: list[claims.Claim] = []

    def slow_fetch(feed, **kwargs):
        run = real_fetch(feed, **kwargs)
        newer.append(taken_over(Feed, feed.pk, feeds.CLAIM_FOR))  # meanwhile, the next run
        return run

    monkeypatch.setattr(feeds, "_fetch", slow_fetch)
    outcome = feeds.run_feed(feed)

    assert "not recorded: this run outlived its claim" in outcome.line
    feed.refresh_from_db()
    assert feed.held_by == newer[0].token and feed.held_until == newer[0].until
    assert feed.last_status == Feed.Status.RUNNING and feed.last_created == 0
    assert Paper.objects.count() == 2  # what the late run imported stays imported
    # The next run records its own outcome (positive control).
    assert newer[0].release(last_status=Feed.Status.OK)


@respx.mock
def test_a_feed_run_records_its_outcome_and_lets_the_feed_go():
    serve_venue()
    feed = venue_feed(name="ICLR")
    assert "2 created" in feeds.run_feed(feed).line
    feed.refresh_from_db()
    assert (feed.last_status, feed.last_created, feed.held_by, feed.held_until) == (
        Feed.Status.OK,
        2,
        "",
        None,
    )


# --- Export jobs ------------------------------------------------------------------------------


@pytest.fixture
def track(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.EXPORT_MAX_MEMBER = 2  # the track's 3 papers are prepared in the background
    return poster_track(3)


def export_files(settings) -> list[str]:
    folder = settings.MEDIA_ROOT / "exports"
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def test_an_export_written_after_its_claim_was_taken_records_nothing(track, settings, monkeypatch):
    job = tasks.start_export(make_user("member"), tag_export(track))
    real_write = export_jobs.write_export
    newer: list[claims.Claim] = []

    def slow_write(*args, **kwargs):
        written = real_write(*args, **kwargs)
        newer.append(taken_over(ExportJob, job.pk, export_jobs.CLAIM_FOR))
        return written

    monkeypatch.setattr(export_jobs, "write_export", slow_write)
    export_jobs.write_job(job.pk)

    job.refresh_from_db()
    assert job.held_by == newer[0].token and job.held_until == newer[0].until  # not freed
    assert job.status == ExportStatus.RUNNING and not job.file  # nor "done" recorded over it
    assert export_files(settings) == []  # the late worker's file is not left behind


def test_an_export_written_with_its_claim_is_done(track, settings):
    job = tasks.start_export(make_user("member"), tag_export(track))
    export_jobs.write_job(job.pk)
    job.refresh_from_db()
    assert job.status == ExportStatus.DONE and job.held_by == "" and job.held_until is None
    assert export_files(settings) == [job.file.name.removeprefix("exports/")]


def test_a_worker_whose_export_was_failed_meanwhile_stops_and_records_nothing(
    track, settings, monkeypatch, caplog
):
    """The worker lost its claim while writing: its member asked again, which failed the job;
    the worker learns it at its next renewal and stops."""
    member = make_user("member")
    job = tasks.start_export(member, tag_export(track))
    monkeypatch.setattr(export_jobs, "CLAIM_FOR", timedelta(microseconds=1))  # renew each batch
    real_batches = export_jobs._kept

    def batches_then_asked_again(claim, batches):
        ExportJob.objects.filter(pk=job.pk).update(held_until=timezone.now() - timedelta(1))
        tasks.start_export(member, tag_export(track, "csv"))
        return real_batches(claim, batches)

    monkeypatch.setattr(export_jobs, "_kept", batches_then_asked_again)
    export_jobs.write_job(job.pk)

    assert "the worker lost its claim" in caplog.text  # stopped at its next renewal
    job.refresh_from_db()
    assert (job.status, job.error) == (ExportStatus.FAILED, export_jobs.WORKER_STOPPED)
    assert not job.file and export_files(settings) == []
    assert ExportJob.objects.get(owner=member, status=ExportStatus.QUEUED)


def test_an_export_whose_worker_died_ends_failed_and_its_page_stops_waiting(client, track):
    member = make_user("member")
    client.force_login(member)
    job = tasks.start_export(member, tag_export(track))
    assert export_jobs._claim(job.pk) is not None  # a worker took it ... and died

    # While its claim holds, the page waits for it (positive control).
    page = client.get(reverse("annotations:export-list")).content.decode()
    assert "Being written" in page and POLLING in page

    ExportJob.objects.filter(pk=job.pk).update(held_until=timezone.now() - timedelta(seconds=1))
    page = client.get(reverse("annotations:export-list")).content.decode()
    assert "Failed" in page and export_jobs.WORKER_STOPPED in page
    assert POLLING not in page and "Being prepared" not in page
    assert ExportJob.objects.get(pk=job.pk).status == ExportStatus.RUNNING  # a GET writes nothing

    # The next write marks it failed for good: here the daily prune_exports.
    call_command("prune_exports", stdout=StringIO())
    job.refresh_from_db()
    assert (job.status, job.error, job.held_by) == (
        ExportStatus.FAILED,
        export_jobs.WORKER_STOPPED,
        "",
    )


def test_an_export_whose_worker_died_may_be_deleted_by_its_member(client, track):
    member = make_user("member")
    client.force_login(member)
    job = tasks.start_export(member, tag_export(track))
    export_jobs._claim(job.pk)
    delete = reverse("annotations:export-delete", args=[job.pk])
    assert client.post(delete).status_code == 404  # still being written: kept
    ExportJob.objects.filter(pk=job.pk).update(held_until=timezone.now() - timedelta(seconds=1))
    assert client.post(delete).status_code == 302
    assert not ExportJob.objects.exists()


# --- Digests ----------------------------------------------------------------------------------


def test_a_digest_run_that_outlived_its_claim_records_nothing_over_the_next_run():
    member = make_user("member0")
    save_search(member, "Diffusion", "q=diffusion")
    now = timezone.now()
    late = digest.claim(member, now)
    newer = digest.claim(member, late.until + timedelta(seconds=1))
    assert newer is not None

    built = digest.build_digest(member, late.row)
    assert not digest.mark_done(built, late, now, sent=True)
    state = DigestState.objects.get(user=member)
    assert state.held_by == newer.token and state.last_run_at is None
    assert digest.mark_done(built, newer, now, sent=True)  # positive control
