"""One claim primitive (issue 38, point 1: operations/claims.py): a row is claimed with a lease
and a holder token in one conditional UPDATE; renewing, recording and letting go are
conditional on the token. Before, five schemes held rows by a time alone: a run that outlived
its lease freed the claim of the run that took over, and recorded "succeeded" over it."""

from __future__ import annotations

import logging
import re
import threading
from datetime import datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from operations import claims
from operations.models import ScheduledJob
from operations.runs import AlreadyRunning, scheduled_run

ROOT = Path(__file__).resolve().parents[1]
CLAIMERS = 8


def job(name: str = "prune_exports") -> ScheduledJob:
    return ScheduledJob.objects.get_or_create(name=name)[0]


def later(claim: claims.Claim) -> datetime:
    """A moment past the claim's lease: its holder is late, or stopped."""
    return claim.until + timedelta(seconds=1)


# --- The primitive ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_held_row_is_not_claimed_again_until_its_lease_lapses():
    row = job()
    first = claims.claim(ScheduledJob, row.pk, timedelta(hours=1))
    assert first is not None and first.row.held_by == first.token
    assert claims.claim(ScheduledJob, row.pk, timedelta(hours=1)) is None
    assert claims.claim(ScheduledJob, row.pk, timedelta(hours=1), now=later(first)) is not None


@pytest.mark.django_db
def test_a_holder_taken_over_can_neither_renew_nor_record_nor_let_go():
    row = job()
    late = claims.claim(ScheduledJob, row.pk, timedelta(hours=1))
    newer = claims.claim(ScheduledJob, row.pk, timedelta(hours=1), now=later(late))
    assert late is not None and newer is not None

    assert not late.renew()
    assert not late.record(error="late")
    assert not late.release(succeeded_at=timezone.now())
    row.refresh_from_db()
    assert (row.held_by, row.held_until, row.error, row.succeeded_at) == (
        newer.token,
        newer.until,
        "",
        None,
    )
    # The newer holder's own writes go through (positive control).
    assert newer.renew() and newer.release(succeeded_at=timezone.now())
    row.refresh_from_db()
    assert row.held_by == "" and row.held_until is None and row.succeeded_at is not None


@pytest.mark.django_db
def test_keeping_a_claim_renews_it_and_stops_the_work_once_it_was_taken_over():
    row = job()
    tiny = timedelta(microseconds=1)  # every keep() is due
    claim = claims.claim(ScheduledJob, row.pk, tiny)
    assert claim is not None
    claim.keep()
    assert ScheduledJob.objects.get(pk=row.pk).held_until == claim.until
    assert claims.claim(ScheduledJob, row.pk, tiny, now=later(claim)) is not None
    with pytest.raises(claims.ClaimLost):
        claim.keep()


@pytest.mark.django_db
def test_a_late_holder_nobody_took_over_still_records_its_outcome():
    """A lapsed lease lets another claim the row; until one does, the work is the late
    holder's to record."""
    row = job()
    claim = claims.claim(ScheduledJob, row.pk, timedelta(hours=1))
    ScheduledJob.objects.filter(pk=row.pk).update(held_until=timezone.now() - timedelta(1))
    assert claim.release(succeeded_at=timezone.now())


@pytest.mark.django_db(transaction=True)
def test_of_claimers_at_once_exactly_one_wins(shared_database):
    """Threads with a connection each, as workers on several servers (PostgreSQL; SQLite
    through a shared file)."""
    rows = [job(f"job {n}") for n in range(3)]
    shared_database.share()
    for row in rows:
        won = shared_database.at_once(
            [lambda pk=row.pk: claims.claim(ScheduledJob, pk, timedelta(hours=1))] * CLAIMERS
        )
        winners = [claim for claim in won if claim is not None]
        assert len(winners) == 1
        held = shared_database.read(lambda pk=row.pk: ScheduledJob.objects.get(pk=pk).held_by)
        assert held == winners[0].token


@pytest.mark.django_db(transaction=True)
def test_of_scheduled_runs_at_once_exactly_one_runs(shared_database):
    job("prune_exports")
    shared_database.share()
    skipped: list[str] = []
    everyone_else_skipped = threading.Event()

    def run() -> str:
        try:
            with scheduled_run("prune_exports"):
                # Held until every other run has tried: a second winner would wait here too.
                everyone_else_skipped.wait(30)
                return "ran"
        except AlreadyRunning:
            skipped.append("skipped")
            if len(skipped) == CLAIMERS - 1:
                everyone_else_skipped.set()
            return "skipped"

    outcomes = shared_database.at_once([run] * CLAIMERS)
    assert sorted(outcomes) == ["ran"] + ["skipped"] * (CLAIMERS - 1)
    row = shared_database.read(lambda: ScheduledJob.objects.get(name="prune_exports"))
    assert row.held_by == "" and row.succeeded_at is not None


def test_one_claim_helper_in_the_code():
    """`grep -rn lease --include=*.py` finds one claim helper: no other module of the apps
    speaks of leases or writes a holder."""
    apps = ["config", "papers", "annotations", "alerts", "recommendations", "operations"]
    apps += ["pdfs", "semantic", "highlights"]
    lease = re.compile(r"\blease\b|\bheld_by\s*=|\bheld_until\s*=|claimed_until")
    found = {
        str(path.relative_to(ROOT))
        for app in apps
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts and lease.search(path.read_text())
    }
    assert found == {"operations/claims.py"}


# --- Scheduled commands -----------------------------------------------------------------------


def command(name: str) -> str:
    out = StringIO()
    call_command(name, stdout=out, stderr=out)
    return out.getvalue()


@pytest.mark.django_db
def test_a_scheduled_run_that_outlived_its_claim_records_nothing_over_the_next(monkeypatch, caplog):
    newer: list[claims.Claim] = []

    def slow_prune():
        # This run is still going when its claim lapses and the next day's run takes over.
        row = ScheduledJob.objects.get(name="prune_exports")
        lapsed = row.held_until + timedelta(seconds=1)
        taken = claims.claim(ScheduledJob, row.pk, timedelta(hours=6), now=lapsed)
        newer.append(taken)
        return 0, 0

    monkeypatch.setattr("annotations.management.commands.prune_exports.prune_exports", slow_prune)
    with caplog.at_level(logging.WARNING):
        command("prune_exports")

    row = ScheduledJob.objects.get(name="prune_exports")
    assert row.held_by == newer[0].token and row.held_until == newer[0].until  # not freed
    assert row.succeeded_at is None  # nor "succeeded" recorded over the running one
    assert "outlived its claim" in caplog.text


@pytest.mark.django_db
def test_a_run_taking_over_a_lapsed_claim_records_the_stopped_run_as_failed(admin_client):
    started = timezone.now() - timedelta(hours=7)
    ScheduledJob.objects.create(
        name="prune_exports",
        started_at=started,
        held_by="web-2 pid 4242 0123abcd",
        held_until=started + timedelta(hours=6),
    )
    assert "prepared exports deleted" in command("prune_exports")
    row = ScheduledJob.objects.get(name="prune_exports")
    assert row.failed_at is not None and "stopped before it recorded how it ended" in row.error
    assert "web-2 pid 4242" in row.error
    assert row.succeeded_at > row.failed_at and row.held_by == ""


@pytest.mark.django_db
def test_the_admin_lists_what_is_held_by_whom_until_when(admin_client, settings, tmp_path):
    from annotations.models import ExportJob
    from tests.factories import make_user

    settings.MEDIA_ROOT = tmp_path
    held = claims.claim(ScheduledJob, job("send_digests").pk, timedelta(hours=6))
    job("fetch_feeds")  # free: not listed
    private = ExportJob.objects.create(
        owner=make_user("member"), path="/x", extension="csv", filename="my-secret-list.csv"
    )
    export = claims.claim(ExportJob, private.pk, timedelta(minutes=10))

    page = admin_client.get(reverse("admin:operations_scheduledjob_changelist")).content.decode()
    start = page.index('id="held-now"')
    listed = page[start : page.index("</table>", start)]
    assert "scheduled job send_digests" in listed and held.token in listed
    assert f"export job {private.pk}" in listed and export.token in listed
    assert "fetch_feeds" not in listed
    assert "my-secret-list" not in page  # an export's file name may name a private list
