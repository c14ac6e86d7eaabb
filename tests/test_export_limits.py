"""Exports that finish or refuse (issue 31): a request exports at most its limit, one export
per client and EXPORT_CONCURRENCY on the site at a time, nothing is sent until the file is
complete, and a member's larger export is prepared in the background for them alone."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotations import export_data, export_files, export_jobs, tasks
from annotations.export_limits import export_slot
from annotations.models import ExportJob, ExportStatus, Visibility
from papers.models import TagKind
from tests.export_helpers import poster_track, tag_export
from tests.factories import make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def track(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return poster_track(6, authors=["Ada Lovelace"])


@pytest.fixture
def immediate_tasks(settings):
    """Tasks run when enqueued, as a worker would run them (the test needs no worker)."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


def test_an_export_within_the_limit_is_sent_whole_with_its_length_and_count(client, track):
    response = client.get(tag_export(track))
    body = response.getvalue()
    assert response.status_code == 200
    assert int(response["Content-Length"]) == len(body)
    assert response["X-Export-Entries"] == "6"
    assert len(json.loads(body)) == 6


def test_a_visitor_over_the_limit_is_refused_with_a_login_link(client, track, settings):
    settings.EXPORT_MAX_ANONYMOUS = 5
    response = client.get(tag_export(track))
    assert response.status_code == 403
    assert "Content-Disposition" not in response
    page = response.content.decode()
    assert "This export holds 6 papers; visitors may export up to 5 at once." in page
    assert f"{reverse('login')}?next=" in page


def test_a_member_may_export_more_than_a_visitor(client, track, settings):
    settings.EXPORT_MAX_ANONYMOUS = 5
    client.force_login(make_user("member"))
    assert client.get(tag_export(track)).status_code == 200


def test_a_member_over_the_limit_is_offered_a_background_export(client, track, settings):
    settings.EXPORT_MAX_MEMBER = 5
    client.force_login(make_user("member"))
    response = client.get(tag_export(track, "bib"))
    assert response.status_code == 403
    page = response.content.decode()
    assert "one download may hold up to 5" in page
    assert reverse("annotations:export-prepare") in page and "Prepare the export" in page


def test_a_second_export_by_the_same_client_waits_for_the_first(client, track):
    member = make_user("member")
    client.force_login(member)
    request = client.get("/").wsgi_request  # the member's request, for the slot's key
    with export_slot(request):
        response = client.get(tag_export(track))
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert "An export of yours is still being written" in response.content.decode()
    assert client.get(tag_export(track)).status_code == 200  # the slot was given back


def test_visitors_from_another_address_are_not_held_up_by_one_client(track, settings):
    settings.EXPORT_CONCURRENCY = 2
    first, second = Client(REMOTE_ADDR="192.0.2.1"), Client(REMOTE_ADDR="192.0.2.2")
    with export_slot(first.get("/").wsgi_request):
        assert second.get(tag_export(track)).status_code == 200


def test_the_site_runs_at_most_its_concurrency_of_exports(track, settings):
    settings.EXPORT_CONCURRENCY = 1
    first, second = Client(REMOTE_ADDR="192.0.2.1"), Client(REMOTE_ADDR="192.0.2.2")
    with export_slot(first.get("/").wsgi_request):
        response = second.get(tag_export(track))
    assert response.status_code == 429
    assert "Other exports are being written right now" in response.content.decode()


def test_the_slots_are_given_back_when_an_export_fails(client, track, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(export_data, "papers_by_id", broken)
    client.raise_request_exception = False
    assert client.get(tag_export(track)).status_code == 500
    monkeypatch.undo()
    assert client.get(tag_export(track)).status_code == 200


def test_an_export_past_its_time_limit_is_an_error_not_a_cut_off_file(
    client, track, settings, monkeypatch
):
    settings.EXPORT_TIME_LIMIT = 1
    monkeypatch.setattr(export_data, "BATCH_SIZE", 2)
    clock = iter(range(0, 1000, 5))  # every look at the clock is 5 seconds later
    monkeypatch.setattr(export_files.time, "monotonic", lambda: next(clock))
    response = client.get(tag_export(track))
    assert response.status_code == 503
    assert "Content-Disposition" not in response
    assert "took longer than 1 seconds to write and was stopped" in response.content.decode()


# --- In the background ---------------------------------------------------------------------


def test_a_member_prepares_a_large_export_and_downloads_it_complete(
    client, track, settings, immediate_tasks
):
    settings.EXPORT_MAX_MEMBER = 5
    member = make_user("member")
    client.force_login(member)
    response = client.post(reverse("annotations:export-prepare"), {"path": tag_export(track)})
    assert response.status_code == 302 and response["Location"] == reverse(
        "annotations:export-list"
    )
    job = ExportJob.objects.get(owner=member)
    assert job.status == ExportStatus.DONE and job.entries == 6
    page = client.get(reverse("annotations:export-list")).content.decode()
    assert "poster.json" in page and "6 papers" in page
    download = client.get(reverse("annotations:export-download", args=[job.pk]))
    body = b"".join(download.streaming_content)
    assert download["X-Export-Entries"] == "6" and len(json.loads(body)) == 6
    assert download["Content-Disposition"] == 'attachment; filename="poster.json"'


# The worker closes the database connection between tasks, as it should: a transaction test.
@pytest.mark.django_db(transaction=True)
def test_the_task_worker_writes_a_queued_export(track):
    """The default backend stores the task in the database; `manage.py db_worker` runs it."""
    job = tasks.start_export(make_user("member"), tag_export(track, "csv"))
    assert ExportJob.objects.get(pk=job.pk).status == ExportStatus.QUEUED
    call_command("db_worker", batch=True, startup_delay=False, verbosity=0)
    job.refresh_from_db()
    assert job.status == ExportStatus.DONE and job.entries == 6


def test_nobody_else_can_see_or_download_a_members_export(client, track, immediate_tasks):
    owner = make_user("owner")
    job = tasks.start_export(owner, tag_export(track))
    client.force_login(make_user("other"))
    assert client.get(reverse("annotations:export-download", args=[job.pk])).status_code == 404
    assert "poster.json" not in client.get(reverse("annotations:export-list")).content.decode()
    client.logout()
    download = client.get(reverse("annotations:export-download", args=[job.pk]))
    assert download.status_code == 302 and reverse("login") in download["Location"]


def test_a_background_export_of_a_private_list_is_its_owners_alone(track, immediate_tasks):
    owner = make_user("owner")
    private = make_reading_list(owner, "Mine", papers=[make_paper("Secret")])
    path = reverse("annotations:list-export-csv", args=[private.pk])
    with pytest.raises(export_jobs.Http404):
        tasks.start_export(make_user("other"), path)
    job = tasks.start_export(owner, path)
    job.refresh_from_db()
    assert job.status == ExportStatus.DONE and job.entries == 1


def test_a_list_made_private_before_the_worker_runs_fails_the_job(track, settings):
    owner, reader = make_user("owner"), make_user("reader")
    shared = make_reading_list(
        owner, "Ours", papers=[make_paper("Shared")], visibility=Visibility.SHARED
    )
    job = tasks.start_export(reader, reverse("annotations:list-export-csv", args=[shared.pk]))
    shared.visibility = Visibility.PRIVATE
    shared.save()
    export_jobs.write_job(job.pk)
    job.refresh_from_db()
    assert job.status == ExportStatus.FAILED and "no longer there for you" in job.error
    assert not job.file


def test_only_one_background_export_per_member_at_a_time(client, track):
    member = make_user("member")
    client.force_login(member)
    prepare = reverse("annotations:export-prepare")
    client.post(prepare, {"path": tag_export(track)})
    response = client.post(prepare, {"path": tag_export(track, "csv")}, follow=True)
    assert "is still being prepared" in response.content.decode()
    assert ExportJob.objects.filter(owner=member).count() == 1


def test_a_job_is_written_once_even_if_two_workers_take_it(track):
    job = tasks.start_export(make_user("member"), tag_export(track))
    export_jobs.write_job(job.pk)
    job.refresh_from_db()
    first_file = job.file.name
    export_jobs.write_job(job.pk)  # the second worker finds it claimed
    job.refresh_from_db()
    assert job.file.name == first_file and job.status == ExportStatus.DONE


@pytest.mark.parametrize(
    "path",
    ["", "papers.bib", "/", "/papers/1/", "/accounts/login/", "/export/papers.exe", "/x" * 1500],
)
def test_prepare_refuses_what_is_not_an_export_address(client, path):
    client.force_login(make_user("member"))
    response = client.post(reverse("annotations:export-prepare"), {"path": path})
    assert response.status_code == 400
    assert not ExportJob.objects.exists()


def test_prepare_is_for_members_and_by_post_only(client, track):
    prepare = reverse("annotations:export-prepare")
    assert client.post(prepare, {"path": tag_export(track)}).status_code == 302  # to log in
    client.force_login(make_user("member"))
    assert client.get(prepare).status_code == 405
    assert not ExportJob.objects.exists()


def test_old_exports_are_pruned_with_their_files(track, settings):
    from datetime import timedelta

    from django.utils import timezone

    job = tasks.start_export(make_user("member"), tag_export(track))
    export_jobs.write_job(job.pk)
    job.refresh_from_db()
    storage, name = job.file.storage, job.file.name
    assert storage.exists(name)
    later = timezone.now() + timedelta(days=settings.EXPORT_FILE_DAYS, minutes=1)
    assert export_jobs.prune_exports(now=later) == (1, 0)
    assert not storage.exists(name) and not ExportJob.objects.exists()


def test_a_refused_export_only_counts_its_papers(client, track, settings, monkeypatch):
    """Refusing must stay cheap: the whole catalogue's ids took seconds to read."""
    from papers.search import engine

    def never(*args, **kwargs):
        raise AssertionError("ids read for a refused export")

    monkeypatch.setattr(engine, "all_ids", never)
    settings.EXPORT_MAX_ANONYMOUS = 5
    response = client.get(reverse("annotations:papers-export", args=["bib"]), {"track": "poster"})
    assert response.status_code == 403
    assert "This export holds 6 papers" in response.content.decode()


def test_the_counted_papers_are_the_written_ones(client, track):
    make_paper("Elsewhere")  # not on the track
    response = client.get(reverse("annotations:papers-export", args=["csv"]), {"track": "poster"})
    assert response["X-Export-Entries"] == "6"
    listing = client.get(reverse("papers:list"), {"track": "poster"}).content.decode()
    assert "6 papers" in listing


def test_a_batch_read_as_a_range_keeps_only_the_papers_asked_for():
    first, between, last = (
        make_paper(title, authors=[f"{title} Author"], tags=[(f"{title} Venue", TagKind.VENUE)])
        for title in ("First", "Between", "Last")
    )
    found = export_data.papers_by_id([last.pk, first.pk])  # dense: read as a range
    assert set(found) == {first.pk, last.pk}
    assert found[first.pk].authors == ["First Author"] and found[first.pk].venue == "First Venue"
    assert found[last.pk].authors == ["Last Author"] and found[last.pk].venue == "Last Venue"
    scattered = export_data.papers_by_id([first.pk, last.pk + 10_000])  # sparse: as a list
    assert list(scattered) == [first.pk] and between.pk not in scattered
