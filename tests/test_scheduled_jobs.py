"""Scheduled commands on several servers (issue 29, points 6 and 7): a command that another
server is running is skipped, not run twice; every run's outcome is recorded, and a failed one
shows in the admin with its error until a later run succeeds."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from operations.models import ScheduledJob
from operations.runs import CLAIM_FOR, AlreadyRunning, scheduled_run

pytestmark = pytest.mark.django_db


def run(name: str, *args: str) -> str:
    out = StringIO()
    call_command(name, *args, stdout=out, stderr=out)
    return out.getvalue()


def test_a_run_records_when_it_succeeded():
    assert "0 prepared exports deleted" in run("prune_exports")
    job = ScheduledJob.objects.get(name="prune_exports")
    assert job.succeeded_at is not None and job.held_until is None and not job.failing


def test_a_command_another_server_is_running_is_skipped():
    with scheduled_run("prune_exports"):
        # Meanwhile, the same crontab line fires on a second server.
        assert "prune_exports is already running (another server): skipped." in run("prune_exports")
    assert ScheduledJob.objects.get(name="prune_exports").held_until is None
    assert "prepared exports deleted" in run("prune_exports")  # free again


def test_a_hold_left_by_a_killed_run_expires():
    job = ScheduledJob.objects.create(name="prune_exports", held_until=timezone.now() + CLAIM_FOR)
    with pytest.raises(AlreadyRunning), scheduled_run("prune_exports"):
        pass
    ScheduledJob.objects.filter(pk=job.pk).update(held_until=timezone.now() - timedelta(1))
    assert "prepared exports deleted" in run("prune_exports")


def test_a_failed_run_is_recorded_with_its_error_until_a_later_success(admin_client, monkeypatch):
    def broken():
        raise OSError("media directory is read-only")

    monkeypatch.setattr("annotations.management.commands.prune_exports.prune_exports", broken)
    with pytest.raises(OSError):
        run("prune_exports")
    job = ScheduledJob.objects.get(name="prune_exports")
    assert job.failing and job.error == "media directory is read-only"
    assert job.held_until is None  # the next run may start

    page = admin_client.get(reverse("admin:operations_scheduledjob_changelist")).content.decode()
    assert "prune_exports" in page and "failed" in page and "media directory is read-only" in page

    monkeypatch.undo()
    run("prune_exports")
    job.refresh_from_db()
    assert not job.failing
    page = admin_client.get(reverse("admin:operations_scheduledjob_changelist")).content.decode()
    assert "succeeded" in page and "media directory is read-only" not in page


def test_a_command_error_counts_as_a_failure():
    with pytest.raises(CommandError):
        run("compute_recommendations", "--limit", "0")
    assert ScheduledJob.objects.get(name="compute_recommendations").failing


def test_a_dry_run_is_neither_held_nor_recorded():
    assert "0 digests sent." in run("send_digests", "--dry-run")
    assert not ScheduledJob.objects.exists()
    with scheduled_run("send_digests"):  # another server's real run does not stop it
        assert "0 digests sent." in run("send_digests", "--dry-run")


def test_the_admin_list_is_read_only(admin_client):
    run("prune_exports")
    job = ScheduledJob.objects.get()
    assert admin_client.get(reverse("admin:operations_scheduledjob_add")).status_code == 403
    response = admin_client.post(
        reverse("admin:operations_scheduledjob_change", args=[job.pk]), {"name": "renamed"}
    )
    assert response.status_code == 403
    assert ScheduledJob.objects.get().name == "prune_exports"
