"""Feeds that keep a lab current: `manage.py fetch_feeds` runs the due ones and records each
outcome on its feed; the admin's "Fetch now" only queues a feed for the task worker. The
services are replayed by respx (bench/standins.py, tests/arxiv_feed.py): nothing
reaches the internet."""

from __future__ import annotations

import io
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from bench.standins import VENUE, page, v2_note
from operations import claims
from papers import tasks
from papers.models import Feed, ImportRun, Paper
from papers.models_feeds import STALE_AFTER
from papers.sources import feeds
from papers.sources.arxiv_api import SORTS
from pdfs.models import PdfRun
from tests.arxiv_feed import feed as atom_feed
from tests.arxiv_feed import numbered
from tests.factories import make_user

pytestmark = pytest.mark.django_db

OPENREVIEW = "https://api2.openreview.net/notes"
ARXIV = "https://arxiv.test/api/query"
CHANGELIST = reverse("admin:papers_feed_changelist")


@pytest.fixture(autouse=True)
def arxiv_settings(settings):
    settings.ARXIV_API_URL = ARXIV
    settings.ARXIV_API_DELAY = 0


@pytest.fixture
def immediate_tasks(settings):
    """Tasks run when enqueued, as a worker would run them (the test needs no worker)."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


def serve_venue() -> respx.Route:
    notes = [v2_note("aB3dE_f-01", "First paper", number=1), v2_note("Gh7_pOsTer", "Second")]
    queries = {("content.venueid", VENUE): notes}
    return respx.get(OPENREVIEW).mock(
        side_effect=lambda request: httpx.Response(200, json=page(queries, request.url.params))
    )


def serve_arxiv(entries: list[str], status: int = 200) -> respx.Route:
    def answer(request: httpx.Request) -> httpx.Response:
        params = {k: v[0] for k, v in parse_qs(urlsplit(str(request.url)).query).items()}
        start, size = int(params["start"]), int(params["max_results"])
        text = atom_feed(entries[start : start + size], total=len(entries), start=start)
        return httpx.Response(status, text=text)

    return respx.get(ARXIV).mock(side_effect=answer)


def venue_feed(**fields) -> Feed:
    return Feed.objects.create(kind=Feed.Kind.OPENREVIEW, target=VENUE, **fields)


def arxiv_feed(**fields) -> Feed:
    fields.setdefault("target", "cat:cs.LG")
    return Feed.objects.create(kind=Feed.Kind.ARXIV, **fields)


def running_feed(**fields) -> Feed:
    """A feed another worker is running: marked so, and held by its claim."""
    feed = venue_feed(**fields)
    assert claims.claim(Feed, feed.pk, feeds.CLAIM_FOR, last_status=Feed.Status.RUNNING)
    return feed


def fetch_feeds(*args: str, out: io.StringIO | None = None) -> str:
    out = out or io.StringIO()
    call_command("fetch_feeds", *args, stdout=out)
    return out.getvalue()


# --- manage.py fetch_feeds ---------------------------------------------------------------


@respx.mock
def test_only_the_enabled_feeds_that_are_due_are_fetched_and_their_counts_recorded():
    venue_route, arxiv_route = serve_venue(), serve_arxiv(numbered(3))
    due = venue_feed(name="ICLR")
    recent = arxiv_feed(name="recent", last_run_at=timezone.now() - timedelta(hours=2))
    disabled = arxiv_feed(name="off", enabled=False)
    out = fetch_feeds()
    assert venue_route.called and not arxiv_route.called
    due.refresh_from_db()
    assert (due.last_status, due.last_created, due.last_updated, due.last_unchanged) == (
        Feed.Status.OK,
        2,
        0,
        0,
    )
    assert due.last_import == ImportRun.objects.get() and due.last_run_at is not None
    assert Paper.objects.count() == 2
    assert out.splitlines() == [
        f"ICLR: OpenReview {VENUE} (API v2): 2 notes, 2 papers; 2 created, 0 updated, "
        "0 unchanged, 0 conflicts"
    ]
    for idle in (recent, disabled):
        assert Feed.objects.get(pk=idle.pk).last_status == Feed.Status.NEW


@respx.mock
def test_a_second_run_of_an_unchanged_feed_counts_its_papers_unchanged():
    serve_venue()
    feed = venue_feed()
    fetch_feeds("--all")
    fetch_feeds("--all")
    feed.refresh_from_db()
    assert (feed.last_created, feed.last_unchanged) == (0, 2)


def test_a_feed_is_due_its_period_after_its_last_run_give_or_take_a_cron_lines_drift():
    now = timezone.now()
    feed = Feed(kind=Feed.Kind.ARXIV, target="x", every_hours=24)
    assert feed.is_due(now)
    feed.last_run_at = now - timedelta(hours=24) + timedelta(seconds=40)  # yesterday's run
    assert feed.is_due(now)
    feed.last_run_at = now - timedelta(hours=12)
    assert not feed.is_due(now)
    feed.enabled, feed.last_run_at = False, None
    assert not feed.is_due(now)


@respx.mock
def test_a_failing_feed_records_its_error_and_the_others_still_run():
    serve_venue()
    respx.get(ARXIV).mock(return_value=httpx.Response(404, text="Not Found"))
    failing = arxiv_feed(name="A failing query")
    working = venue_feed(name="B venue")
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 of 2 feeds failed"):
        fetch_feeds(out=out)
    failing.refresh_from_db()
    working.refresh_from_db()
    assert failing.last_status == Feed.Status.FAILED
    assert ARXIV in failing.last_error and "nothing was imported" in failing.last_error
    assert failing.last_run_at is not None and failing.last_import is None
    assert (working.last_status, working.last_created) == (Feed.Status.OK, 2)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("A failing query: failed: ") and lines[1].startswith("B venue: ")


@respx.mock
def test_a_later_success_clears_the_error():
    serve_arxiv(numbered(3))
    feed = arxiv_feed(last_status=Feed.Status.FAILED, last_error="it broke")
    fetch_feeds("--all")
    feed.refresh_from_db()
    assert (feed.last_status, feed.last_error, feed.last_created) == (Feed.Status.OK, "", 3)


@respx.mock
def test_a_dry_run_writes_nothing_on_the_catalogue_nor_on_the_feeds():
    serve_venue()
    feed = venue_feed(name="ICLR")
    out = fetch_feeds("--dry-run")
    assert "dry run, would have: 2 created" in out
    assert not Paper.objects.exists() and not ImportRun.objects.exists()
    feed.refresh_from_db()
    assert (feed.last_status, feed.last_run_at) == (Feed.Status.NEW, None)


def test_no_feed_due_says_so():
    assert fetch_feeds() == "No feed is due.\n"


@respx.mock
def test_a_feed_another_worker_is_running_is_skipped_unless_its_worker_is_long_gone():
    route = serve_venue()
    feed = running_feed()
    assert "skipped, another worker is running it" in fetch_feeds()
    assert not route.called
    Feed.objects.filter(pk=feed.pk).update(held_until=timezone.now() - timedelta(minutes=1))
    fetch_feeds()
    assert Feed.objects.get(pk=feed.pk).last_status == Feed.Status.OK


@respx.mock
def test_a_feed_queued_for_a_worker_is_left_to_it_unless_no_worker_took_it():
    route = serve_venue()
    feed = venue_feed(last_status=Feed.Status.QUEUED, status_changed_at=timezone.now())
    assert "skipped, another worker is running it" in fetch_feeds()
    assert not route.called
    Feed.objects.filter(pk=feed.pk).update(
        status_changed_at=timezone.now() - STALE_AFTER - timedelta(minutes=1)
    )
    fetch_feeds()
    assert Feed.objects.get(pk=feed.pk).last_status == Feed.Status.OK


# --- The model ----------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["", "not a venue", "ICLR.cc/2025/-/Submission", "a" * 181])
def test_a_venue_feed_needs_an_openreview_id(target):
    with pytest.raises(ValidationError) as error:
        Feed(kind=Feed.Kind.OPENREVIEW, target=target).full_clean()
    assert "target" in error.value.message_dict


def test_an_arxiv_feed_needs_a_query_and_a_venue_id_is_tidied():
    with pytest.raises(ValidationError):
        Feed(kind=Feed.Kind.ARXIV, target="   ").full_clean()
    feed = Feed(kind=Feed.Kind.OPENREVIEW, target=" NeurIPS.cc/2024/Conference/ ")
    feed.full_clean()
    assert feed.target == "NeurIPS.cc/2024/Conference"


def test_the_arxiv_sorts_are_the_fetchers():
    assert tuple(Feed.ArxivSort.values) == SORTS


# --- The admin's "Fetch now" --------------------------------------------------------------


@pytest.fixture
def curator(client):
    user = make_user("curator", is_staff=True, is_superuser=True)
    client.force_login(user)
    return user


def fetch_now(client, *feeds_: Feed):
    return client.post(
        CHANGELIST,
        {"action": "fetch_now", "_selected_action": [feed.pk for feed in feeds_]},
        follow=True,
    )


@respx.mock
def test_fetch_now_queues_the_feed_and_the_task_runs_it(client, curator, immediate_tasks):
    serve_venue()
    feed = venue_feed(name="ICLR")
    response = fetch_now(client, feed)
    assert "Queued: ICLR." in response.content.decode()
    feed.refresh_from_db()
    assert (feed.last_status, feed.last_created) == (Feed.Status.OK, 2)
    run = ImportRun.objects.get()
    assert run.user == curator and "fetched from the admin" in run.invoked_by


def test_fetch_now_only_queues_a_task_and_fetches_nothing_in_the_request(client, curator):
    feed = venue_feed(name="ICLR")
    with respx.mock:  # any request would fail the test: no route is served
        fetch_now(client, feed)
    feed.refresh_from_db()
    assert feed.last_status == Feed.Status.QUEUED
    task = DBTaskResult.objects.get()
    assert task.args_kwargs["args"] == [feed.pk, curator.pk]


def test_a_queued_or_running_feed_is_not_queued_twice(client, curator):
    queued = venue_feed(name="ICLR")
    running = running_feed(name="running")
    fetch_now(client, queued)
    response = fetch_now(client, queued, running)
    assert "Already queued or running: ICLR, running." in response.content.decode()
    assert DBTaskResult.objects.count() == 1
    assert Feed.objects.get(pk=running.pk).last_status == Feed.Status.RUNNING


def test_a_task_for_a_feed_that_is_no_longer_queued_does_nothing():
    feed = running_feed()
    with respx.mock:
        assert feeds.run_queued_feed(feed.pk) is None
    assert Feed.objects.get(pk=feed.pk).last_status == Feed.Status.RUNNING


def test_a_curator_who_cannot_change_feeds_cannot_fetch_them(client):
    viewer = make_user("viewer", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_feed"))
    client.force_login(viewer)
    feed = venue_feed()
    assert client.get(CHANGELIST).status_code == 200
    fetch_now(client, feed)
    assert Feed.objects.get(pk=feed.pk).last_status == Feed.Status.NEW
    assert not DBTaskResult.objects.exists()


def test_the_change_list_shows_feeds_in_every_status(client, curator):
    now = timezone.now()
    for status in Feed.Status:
        arxiv_feed(
            name=f"feed {status.label}",
            last_status=status,
            last_run_at=now if status else None,
            last_error="arXiv said no " * 20 if status == Feed.Status.FAILED else "",
        )
    response = client.get(CHANGELIST)
    body = response.content.decode()
    assert response.status_code == 200
    for status in Feed.Status:
        assert f"feed {status.label}" in body
    assert "arXiv said no arXiv said no" in body and "arXiv said no " * 20 not in body
    for query in ("?last_status__exact=failed", "?kind__exact=arxiv&enabled__exact=1"):
        assert client.get(CHANGELIST + query).status_code == 200


def test_the_add_form_refuses_a_bad_venue_id(client, curator):
    response = client.post(
        reverse("admin:papers_feed_add"),
        {"kind": "openreview", "target": "not a venue", "arxiv_sort": SORTS[0], "every_hours": 24},
    )
    assert response.status_code == 200 and "Not an OpenReview venue id" in response.content.decode()
    assert not Feed.objects.exists()


# The worker closes the database connection between tasks, as it should: a transaction test.
@pytest.mark.django_db(transaction=True)
@respx.mock
def test_the_task_worker_runs_a_queued_feed():
    """The default backend stores the task in the database; `manage.py db_worker` runs it."""
    serve_venue()
    feed = venue_feed()
    assert tasks.enqueue_fetch(feed)
    assert Feed.objects.get(pk=feed.pk).last_status == Feed.Status.QUEUED
    call_command("db_worker", batch=True, startup_delay=False, verbosity=0)
    feed.refresh_from_db()
    assert (feed.last_status, feed.last_created) == (Feed.Status.OK, 2)


@respx.mock
def test_a_feed_downloads_no_pdfs_unless_it_is_asked_to():
    """Bulk PDF downloads are opt-in per feed (issue 38): a feed's papers wait for the
    `fetch_pdfs` cron line, or a curator's run (tests/test_pdf_runs.py)."""
    serve_venue()
    venue_feed()
    fetch_feeds("--all")
    assert Paper.objects.count() == 2
    assert not DBTaskResult.objects.filter(task_path__startswith="pdfs.").exists()
    assert not PdfRun.objects.exists()


@respx.mock
def test_a_feed_that_downloads_pdfs_starts_a_bulk_run_over_the_papers_it_added():
    serve_venue()
    feed = venue_feed()
    Feed.objects.filter(pk=feed.pk).update(download_pdfs=True)
    fetch_feeds("--all")
    [run] = PdfRun.objects.all()
    added = set(Paper.objects.values_list("pk", flat=True))
    assert len(added) == 2 and set(run.paper_ids) == added and run.feed_id == feed.pk
    [task] = DBTaskResult.objects.filter(task_path__startswith="pdfs.")
    assert (task.task_path, task.queue_name) == ("pdfs.bulk.fetch_pdf_run_batch", "bulk")
    assert task.args_kwargs["args"] == [run.pk, 0]
    # Nothing new the second time: no run is started.
    fetch_feeds("--all")
    feed.refresh_from_db()
    assert feed.last_unchanged == 2
    assert PdfRun.objects.count() == 1
