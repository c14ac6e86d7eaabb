"""Prepared exports within bounds (security issue 43, findings 10 and 13): one job per member
however many requests ask at once, a quota of files kept per member, and no file outliving
its job (a deleted member's export, with their private notes, stayed on disk).

Before: ten simultaneous "prepare" requests made 2 jobs (the lock found no row to lock), and
one member had 41 exports (166 MB) prepared in 60 s."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotations import export_jobs, tasks
from annotations.models import ExportJob, ExportStatus
from tests.export_helpers import poster_track, tag_export
from tests.factories import make_user

pytestmark = pytest.mark.django_db

REQUESTS = 10


@pytest.fixture
def track(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.EXPORT_MAX_MEMBER = 2  # the track's 3 papers are prepared in the background
    return poster_track(3)


@pytest.fixture
def immediate_tasks(settings):
    """Tasks run when enqueued, as a worker would run them (the test needs no worker)."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


def prepare(client, tag, extension: str = "json"):
    return client.post(
        reverse("annotations:export-prepare"), {"path": tag_export(tag, extension)}, follow=True
    )


def written_job(owner, tag) -> ExportJob:
    job = tasks.start_export(owner, tag_export(tag))
    export_jobs.write_job(job.pk)
    job.refresh_from_db()
    assert job.status == ExportStatus.DONE and job.file.storage.exists(job.file.name)
    return job


# --- One job per member under concurrency -----------------------------------------------------


@pytest.mark.slow  # ten threads, each with its own database connection
@pytest.mark.django_db(transaction=True)
def test_ten_prepare_requests_at_once_make_one_job(track, shared_database):
    member, other = make_user("member"), make_user("other")
    clients = [Client() for _ in range(REQUESTS)]
    for client in clients:
        client.force_login(member)
    shared_database.share()

    def ask(client) -> tuple[int, str]:
        response = client.post(reverse("annotations:export-prepare"), {"path": tag_export(track)})
        return response.status_code, response.get("Location")

    answers = shared_database.at_once([lambda client=client: ask(client) for client in clients])

    # Each to the list of exports (where the one job is shown): none is an error.
    assert answers == [(302, reverse("annotations:export-list"))] * REQUESTS
    assert shared_database.read(lambda: ExportJob.objects.filter(owner=member).count()) == 1
    # Another member's request is not one of them.
    shared_database.read(lambda: tasks.start_export(other, tag_export(track)))
    assert shared_database.read(lambda: ExportJob.objects.count()) == 2


def test_a_second_request_is_answered_with_the_job_there_is(track):
    member = make_user("member")
    first = tasks.start_export(member, tag_export(track))

    with pytest.raises(tasks.ExportPending) as pending:
        tasks.start_export(member, tag_export(track, "csv"))

    assert pending.value.job == first


def test_a_job_whose_worker_was_lost_no_longer_holds_the_members_place(track):
    member = make_user("member")
    lost = tasks.start_export(member, tag_export(track))
    ExportJob.objects.filter(pk=lost.pk).update(
        status=ExportStatus.RUNNING, created_at=timezone.now() - timedelta(hours=2)
    )

    job = tasks.start_export(member, tag_export(track, "csv"))

    lost.refresh_from_db()
    assert lost.status == ExportStatus.FAILED and lost.error == export_jobs.WORKER_STOPPED
    assert job.status == ExportStatus.QUEUED


# --- A quota of prepared files per member ------------------------------------------------------


def test_a_member_keeps_at_most_the_quota_of_prepared_exports(
    client, track, settings, immediate_tasks
):
    settings.EXPORT_JOBS_MEMBER_KEPT = 2
    member = make_user("member")
    client.force_login(member)
    prepare(client, track, "json")
    prepare(client, track, "csv")

    refused = prepare(client, track, "ris").content.decode()

    assert "You keep 2 prepared exports" in refused and "as many as one member may" in refused
    assert "Delete one you no longer need, or wait" in refused
    assert ExportJob.objects.filter(owner=member).count() == 2
    # Another member may still prepare theirs.
    client.force_login(make_user("other"))
    assert "Preparing" in prepare(client, track, "ris").content.decode()
    # Once the member deletes one, there is room again.
    client.force_login(member)
    oldest = ExportJob.objects.filter(owner=member).earliest("created_at")
    client.post(reverse("annotations:export-delete", args=[oldest.pk]))
    assert "Preparing" in prepare(client, track, "ris").content.decode()


def test_a_member_keeps_at_most_the_quota_of_bytes(client, track, settings, immediate_tasks):
    member = make_user("member")
    client.force_login(member)
    prepare(client, track, "json")
    kept = ExportJob.objects.get(owner=member)
    assert kept.size == kept.file.size > 0
    settings.EXPORT_JOBS_MEMBER_BYTES = kept.size

    refused = prepare(client, track, "csv").content.decode()

    assert "You keep 1 prepared export (" in refused
    assert ExportJob.objects.filter(owner=member).count() == 1


def test_only_its_owner_deletes_a_prepared_export(client, track, immediate_tasks):
    owner, other = make_user("owner"), make_user("other")
    job = written_job(owner, track)
    delete = reverse("annotations:export-delete", args=[job.pk])

    client.force_login(other)
    assert client.post(delete).status_code == 404
    client.force_login(owner)
    assert client.get(delete).status_code == 405
    assert ExportJob.objects.filter(pk=job.pk).exists()
    assert client.post(delete).status_code == 302
    assert not ExportJob.objects.filter(pk=job.pk).exists()


# --- No file outlives its job --------------------------------------------------------------


def test_deleting_a_member_deletes_their_export_files(track, django_capture_on_commit_callbacks):
    leaving, staying = make_user("leaving"), make_user("staying")
    theirs, others = written_job(leaving, track), written_job(staying, track)
    storage = theirs.file.storage

    with django_capture_on_commit_callbacks(execute=True):
        leaving.delete()

    assert not storage.exists(theirs.file.name)
    assert storage.exists(others.file.name)  # another member's file stays


def test_prune_exports_sweeps_files_whose_export_is_gone(track):
    member = make_user("member")
    kept = written_job(member, track)
    being_written = tasks.start_export(make_user("writer"), tag_export(track))
    storage = kept.file.storage
    orphan = storage.save("exports/999999-0123456789abcdef.json", ContentFile(b"[]"))
    stray = storage.save("exports/notes.md", ContentFile(b"# private"))
    # A worker saves the file first, then records it on its job: not an orphan meanwhile.
    in_progress = storage.save(
        f"exports/{being_written.pk}-fedcba9876543210.json", ContentFile(b"")
    )

    out = StringIO()
    call_command("prune_exports", stdout=out)

    assert "0 prepared exports deleted, 2 files without an export swept" in out.getvalue()
    assert not storage.exists(orphan) and not storage.exists(stray)
    assert storage.exists(kept.file.name) and storage.exists(in_progress)


def test_prune_exports_with_no_exports_folder_sweeps_nothing(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "empty"

    assert export_jobs.prune_exports() == (0, 0)
