"""manage.py fetch_pdfs end to end, against a local HTTP server of the tests' own that
PDF_FETCH_HOSTS names with its http:// scheme: good PDFs are stored, and each kind of bad link
is refused with a message that says why, storing nothing."""

from __future__ import annotations

import hashlib
import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from pdfs.models import PaperPdf, PdfFetchFailure
from tests.factories import make_paper
from tests.pdf_server import GOOD_PDF, LIMIT, PdfServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def server(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PDF_MAX_BYTES = LIMIT
    settings.PDF_FETCH_TIMEOUT = 5
    with PdfServer() as server:
        settings.PDF_FETCH_HOSTS = ["arxiv.org", server.base]
        yield server


def fetch_pdfs(*args: str) -> str:
    out = io.StringIO()
    call_command("fetch_pdfs", *args, stdout=out)
    return out.getvalue()


def stored_files(settings) -> list[str]:
    root = settings.MEDIA_ROOT / "pdfs"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_a_good_pdf_is_fetched_and_stored(server, settings):
    paper = make_paper(pdf_url=server.url("/good.pdf"))

    out = fetch_pdfs()

    assert "PDFs: 1 fetched, 0 unchanged, 0 refused." in out
    pdf = PaperPdf.objects.get(paper=paper)
    assert pdf.sha256 == hashlib.sha256(GOOD_PDF).hexdigest()
    assert pdf.size == len(GOOD_PDF)
    assert pdf.source_url == server.url("/good.pdf")
    assert pdf.uploaded_by is None
    with pdf.file.open("rb") as file:
        assert file.read() == GOOD_PDF
    assert stored_files(settings) == [f"{paper.pk}/{pdf.sha256[:16]}.pdf"]


def test_a_redirect_within_the_listed_hosts_is_followed(server):
    paper = make_paper(pdf_url=server.url("/moved.pdf"))

    assert "1 fetched" in fetch_pdfs()
    assert PaperPdf.objects.get(paper=paper).size == len(GOOD_PDF)


def test_a_second_run_fetches_only_papers_still_without_a_pdf(server):
    make_paper(pdf_url=server.url("/good.pdf"))
    fetch_pdfs()

    assert "PDFs: 0 fetched, 0 unchanged, 0 refused." in fetch_pdfs()
    assert server.hits["/good.pdf"] == 1


def test_refetch_keeps_an_unchanged_file_and_replaces_a_changed_one(
    server, settings, django_capture_on_commit_callbacks
):
    same = make_paper(pdf_url=server.url("/good.pdf"))
    changed = make_paper(pdf_url=server.url("/good.pdf"))
    fetch_pdfs()
    old_name = PaperPdf.objects.get(paper=changed).file.name
    changed.pdf_url = server.url("/other.pdf")  # as a new arXiv version would be
    changed.save()

    with django_capture_on_commit_callbacks(execute=True):
        out = fetch_pdfs("--refetch")

    assert "1 fetched (1 replacing an older file), 1 unchanged" in out
    new = PaperPdf.objects.get(paper=changed)
    assert new.file.name != old_name
    assert new.sha256 != PaperPdf.objects.get(paper=same).sha256
    # The replaced file is gone from storage; each paper keeps one file.
    assert len(stored_files(settings)) == 2


def test_paper_and_limit_choose_what_is_fetched(server):
    first = make_paper(pdf_url=server.url("/good.pdf"))
    second = make_paper(pdf_url=server.url("/good.pdf"))
    third = make_paper(pdf_url=server.url("/good.pdf"))
    make_paper(pdf_url="")  # nothing to fetch

    fetch_pdfs("--paper", str(third.pk))
    assert list(PaperPdf.objects.values_list("paper_id", flat=True)) == [third.pk]
    fetch_pdfs("--limit", "1")
    assert set(PaperPdf.objects.values_list("paper_id", flat=True)) == {first.pk, third.pk}
    assert not PaperPdf.objects.filter(paper=second).exists()


def test_a_503_is_tried_again(server):
    paper = make_paper(pdf_url=server.url("/busy-once.pdf"))

    assert "1 fetched" in fetch_pdfs()
    assert server.hits["/busy-once.pdf"] == 2
    assert PaperPdf.objects.filter(paper=paper).exists()


@pytest.mark.parametrize(
    ("link", "reason", "message"),
    [
        (
            "https://files.example.net/paper.pdf",
            "host not allowed",
            "https://files.example.net/paper.pdf: files.example.net is not in PDF_FETCH_HOSTS",
        ),
        (
            # arxiv.org is listed without a scheme: https only.
            "http://arxiv.org/pdf/2310.01234",
            "host not allowed",
            "http://arxiv.org is not in PDF_FETCH_HOSTS",
        ),
        (
            "/away.pdf",
            "redirect to a host not allowed",
            "redirected to https://files.example.net/paper.pdf: files.example.net is not in "
            "PDF_FETCH_HOSTS",
        ),
        ("/big.pdf", "over the size limit", "too large: it has 60,597 bytes, more than the limit"),
        (
            "/big-unannounced.pdf",
            "over the size limit",
            "too large: more than the limit of 50,000 bytes arrived",
        ),
        ("/page.html", "not a PDF", "not a PDF (text/html): it does not start with %PDF-"),
        ("/html-as-pdf.pdf", "not a PDF", "(it starts with '<!DOCTYPE html>"),
        ("/missing.pdf", "HTTP error", "answered HTTP 404 Not Found"),
    ],
)
def test_a_bad_link_is_refused_with_its_reason_and_nothing_is_stored(
    server, settings, link, reason, message
):
    url = server.url(link) if link.startswith("/") else link
    paper = make_paper(pdf_url=url)

    out = fetch_pdfs()

    assert f"PDFs: 0 fetched, 0 unchanged, 1 refused: 1 {reason}." in out
    failure = out.splitlines()[0]
    assert failure.startswith(f"paper {paper.pk}: {url}: ")
    assert message in failure
    assert not PaperPdf.objects.exists()
    assert not (settings.MEDIA_ROOT / "pdfs").exists()


@pytest.mark.parametrize(
    ("link", "message"),
    [("/slow.pdf", "no complete PDF within 1 s"), ("/silent.pdf", "no answer within 1 s")],
)
def test_a_slow_server_is_given_up_on_within_the_time_limit(server, settings, link, message):
    settings.PDF_FETCH_TIMEOUT = 1
    paper = make_paper(pdf_url=server.url(link))

    out = fetch_pdfs()

    assert f"paper {paper.pk}: {server.url(link)}: {message}" in out
    assert "1 refused: 1 too slow." in out
    assert not PaperPdf.objects.exists()


def test_good_and_bad_links_in_one_run_are_each_reported(server):
    make_paper(pdf_url=server.url("/good.pdf"))
    make_paper(pdf_url=server.url("/page.html"))
    make_paper(pdf_url="https://files.example.net/x.pdf")

    out = fetch_pdfs("--workers", "3")

    assert "PDFs: 1 fetched, 0 unchanged, 2 refused: " in out
    assert "1 not a PDF" in out and "1 host not allowed" in out
    assert PaperPdf.objects.count() == 1


def test_the_background_task_fetches_the_pdfs_of_the_papers_it_is_given(server, settings):
    from pdfs.tasks import fetch_paper_pdfs

    # Tasks run when enqueued, as a worker would run them (the test needs no worker).
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    asked = make_paper(pdf_url=server.url("/good.pdf"))
    refused = make_paper(pdf_url=server.url("/page.html"))
    make_paper(pdf_url=server.url("/good.pdf"))  # not asked for

    result = fetch_paper_pdfs.enqueue([asked.pk, refused.pk])

    assert result.return_value.startswith("PDFs: 1 fetched, 0 unchanged, 1 refused: 1 not a PDF.")
    assert f"paper {refused.pk}: {server.url('/page.html')}: not a PDF" in result.return_value
    assert list(PaperPdf.objects.values_list("paper_id", flat=True)) == [asked.pk]


def test_a_refused_link_waits_a_day_then_twice_as_long_after_each_refusal(server):
    paper = make_paper(pdf_url=server.url("/page.html"))
    fetch_pdfs()
    failure = PdfFetchFailure.objects.get(paper=paper)
    assert (failure.reason, failure.refusals) == ("not a PDF", 1)
    assert failure.retry_after - failure.failed_at == timedelta(days=1)

    out = fetch_pdfs()

    assert "PDFs: 0 fetched, 0 unchanged, 0 refused." in out
    assert "Not asked: 1 paper whose link was refused lately, until their next try" in out
    assert server.hits["/page.html"] == 1

    out = fetch_pdfs("--retry-refused")
    failure.refresh_from_db()
    assert "1 refused: 1 not a PDF" in out
    assert failure.refusals == 2
    assert failure.retry_after - failure.failed_at == timedelta(days=2)


def test_a_waiting_link_is_asked_again_when_its_wait_is_over_or_its_paper_is_named(server):
    paper = make_paper(pdf_url=server.url("/page.html"))
    fetch_pdfs()

    fetch_pdfs("--paper", str(paper.pk))
    assert server.hits["/page.html"] == 2
    PdfFetchFailure.objects.update(retry_after=timezone.now() - timedelta(seconds=1))
    fetch_pdfs()
    assert server.hits["/page.html"] == 3


def test_a_new_link_is_asked_at_once_and_a_stored_pdf_ends_the_record(server):
    paper = make_paper(pdf_url=server.url("/page.html"))
    fetch_pdfs()
    paper.pdf_url = server.url("/good.pdf")
    paper.save()

    assert "1 fetched" in fetch_pdfs()
    assert not PdfFetchFailure.objects.exists()


def test_curators_find_refused_links_in_admin(server, admin_client):
    paper = make_paper("A paper with a broken link", pdf_url=server.url("/page.html"))
    fetch_pdfs()
    failure = PdfFetchFailure.objects.get(paper=paper)

    listing = admin_client.get(reverse("admin:pdfs_pdffetchfailure_changelist"))
    page = admin_client.get(reverse("admin:pdfs_pdffetchfailure_change", args=[failure.pk]))

    assert "A paper with a broken link" in listing.content.decode()
    assert "not a PDF" in listing.content.decode()
    assert "it does not start with %PDF-" in page.content.decode()


def test_a_scheduled_run_is_skipped_while_another_server_runs_one(server):
    from operations.models import ScheduledJob
    from operations.runs import CLAIM_FOR

    paper = make_paper(pdf_url=server.url("/good.pdf"))
    ScheduledJob.objects.create(name="fetch_pdfs", held_until=timezone.now() + CLAIM_FOR)

    assert "fetch_pdfs is already running (another server): skipped." in fetch_pdfs()
    assert not PaperPdf.objects.exists()
    # Naming papers is someone at a shell: it runs whatever the schedule holds.
    assert "1 fetched" in fetch_pdfs("--paper", str(paper.pk))


def test_a_refetch_restores_a_file_missing_from_storage(server, django_capture_on_commit_callbacks):
    paper = make_paper(pdf_url=server.url("/good.pdf"))
    fetch_pdfs()
    pdf = PaperPdf.objects.get(paper=paper)
    pdf.file.storage.delete(pdf.file.name)

    with django_capture_on_commit_callbacks(execute=True):
        out = fetch_pdfs("--refetch", "--paper", str(paper.pk))

    assert "1 fetched (1 replacing an older file)" in out
    with PaperPdf.objects.get(paper=paper).file.open("rb") as file:
        assert file.read() == GOOD_PDF
