"""What a member may upload (security issue 43, finding 10): only a PDF a reader can open,
within a daily quota per member, and never in the way of the file from the paper's source.

One member stored 257 MB of PDFs in 2.2 s, and junk uploads stopped the real PDF from being
fetched (a paper with any stored PDF was never fetched again)."""

from __future__ import annotations

import hashlib
import io
from datetime import timedelta
from io import BytesIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from pdfs.models import PaperPdf, PdfFetchFailure
from pdfs.storing import store_pdf
from pdfs.uploads import UploadQuotaFull
from tests.factories import make_paper, make_user
from tests.pdf_files import make_pdf
from tests.pdf_server import GOOD_PDF, LIMIT, PdfServer

pytestmark = pytest.mark.django_db

PDF = make_pdf("A member's copy of the paper.")


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PDF_MAX_BYTES = LIMIT


def upload(client, paper, content: bytes = PDF) -> str:
    file = SimpleUploadedFile("paper.pdf", content, content_type="application/pdf")
    response = client.post(reverse("pdfs:upload", args=[paper.pk]), {"file": file}, follow=True)
    return response.content.decode()


def stored_files(settings) -> list:
    root = settings.MEDIA_ROOT / "pdfs"
    return sorted(root.rglob("*.pdf")) if root.exists() else []


# --- Only a PDF ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "junk",
    [
        b"%PDF-1.7\n" + b"not a PDF at all " * 100,
        b"%PDF-1.4\n<html><script>alert(1)</script></html>",
        make_pdf("cut short")[:200],
    ],
    ids=["text", "html", "cut-short"],
)
def test_an_upload_that_starts_like_a_pdf_but_is_none_is_refused(client, user, settings, junk):
    paper = make_paper()
    client.force_login(user)

    page = upload(client, paper, junk)

    assert "This file is not a PDF we can keep: a PDF reader cannot count its pages" in page
    assert not PaperPdf.objects.exists() and stored_files(settings) == []


def test_a_pdf_a_reader_opens_is_kept(client, user):
    paper = make_paper()
    client.force_login(user)

    assert "PDF uploaded." in upload(client, paper, PDF)
    assert PaperPdf.objects.get(paper=paper).uploaded_by == user


# --- The source's file comes first ---------------------------------------------------------


@pytest.fixture
def server(settings):
    settings.PDF_FETCH_TIMEOUT = 5
    with PdfServer() as server:
        settings.PDF_FETCH_HOSTS = [server.base]
        yield server


def fetch_pdfs() -> str:
    out = io.StringIO()
    call_command("fetch_pdfs", stdout=out)
    return out.getvalue()


def test_a_members_upload_does_not_stop_the_sources_pdf_from_being_fetched(
    client, user, server, django_capture_on_commit_callbacks
):
    paper = make_paper(pdf_url=server.url("/good.pdf"))
    client.force_login(user)
    upload(client, paper, make_pdf("Not the paper, uploaded first."))

    with django_capture_on_commit_callbacks(execute=True):
        out = fetch_pdfs()

    assert "PDFs: 1 fetched (1 replacing an older file)" in out
    pdf = PaperPdf.objects.get(paper=paper)
    assert pdf.sha256 == hashlib.sha256(GOOD_PDF).hexdigest()
    assert pdf.source_url == server.url("/good.pdf") and pdf.uploaded_by is None
    # Fetched from its source now: later runs leave it alone.
    assert "PDFs: 0 fetched, 0 unchanged, 0 refused." in fetch_pdfs()


def test_an_upload_stays_where_there_is_no_link_or_the_link_is_refused(client, user, server):
    no_link = make_paper("No link")
    refused = make_paper("Refused link", pdf_url=server.url("/missing.pdf"))
    assert "1 refused" in fetch_pdfs()
    client.force_login(user)
    upload(client, no_link)
    upload(client, refused)

    out = fetch_pdfs()

    # The refused link waits after its refusal, upload or not: nothing is asked.
    assert "PDFs: 0 fetched, 0 unchanged, 0 refused." in out
    assert PdfFetchFailure.objects.filter(paper=refused).exists()
    for paper in (no_link, refused):
        assert PaperPdf.objects.get(paper=paper).uploaded_by == user


# --- A daily quota per member --------------------------------------------------------------


def test_a_member_uploads_at_most_the_daily_number_of_files(client, user, settings):
    settings.PDF_UPLOAD_MEMBER_DAILY_FILES = 2
    papers = [make_paper(f"Paper {n}") for n in range(4)]
    client.force_login(user)

    assert "PDF uploaded." in upload(client, papers[0])
    assert "PDF uploaded." in upload(client, papers[1])
    refused = upload(client, papers[2])

    assert "You have uploaded 2 PDFs in the last 24 hours, the most one member may." in refused
    assert not PaperPdf.objects.filter(paper=papers[2]).exists()
    assert len(stored_files(settings)) == 2
    # Another member is not held back by the first one's uploads.
    client.force_login(make_user("bob"))
    assert "PDF uploaded." in upload(client, papers[2])
    # A day later the first member may upload again.
    PaperPdf.objects.filter(uploaded_by=user).update(
        created_at=timezone.now() - timedelta(hours=25)
    )
    client.force_login(user)
    assert "PDF uploaded." in upload(client, papers[3])


def test_a_member_uploads_at_most_the_daily_number_of_bytes(client, user, settings):
    settings.PDF_UPLOAD_MEMBER_DAILY_BYTES = 2 * len(PDF) + 10
    papers = [make_paper(f"Paper {n}") for n in range(3)]
    client.force_login(user)

    assert "PDF uploaded." in upload(client, papers[0])
    assert "PDF uploaded." in upload(client, papers[1])
    refused = upload(client, papers[2])

    assert "would bring your uploads of the last 24 hours to" in refused
    assert "one member may upload a day" in refused
    assert not PaperPdf.objects.filter(paper=papers[2]).exists()


def test_the_quota_is_checked_again_where_the_upload_is_stored(user, settings):
    """Uploads sent at once all pass the form's check; the one stored over the quota, counted
    with the member's row locked, is refused and leaves no file behind."""
    settings.PDF_UPLOAD_MEMBER_DAILY_FILES = 1
    first, second = make_paper("First"), make_paper("Second")

    def store(paper):
        return store_pdf(
            paper_id=paper.pk,
            file=BytesIO(PDF),
            sha256=hashlib.sha256(PDF).hexdigest(),
            size=len(PDF),
            uploaded_by=user,
            replace=False,
        )

    store(first)
    with pytest.raises(UploadQuotaFull):
        store(second)

    assert list(PaperPdf.objects.values_list("paper", flat=True)) == [first.pk]
    assert len(stored_files(settings)) == 1
    # A fetch is no upload: never counted.
    store_pdf(
        paper_id=second.pk,
        file=BytesIO(PDF),
        sha256=hashlib.sha256(PDF).hexdigest(),
        size=len(PDF),
        source_url="https://arxiv.org/pdf/2310.01234",
    )
    assert PaperPdf.objects.count() == 2


@pytest.mark.slow  # five threads, each with its own database connection
@pytest.mark.django_db(transaction=True)
def test_uploads_sent_at_once_are_counted_one_after_the_other(user, settings, shared_database):
    settings.PDF_UPLOAD_MEMBER_DAILY_FILES = 2
    papers = [make_paper(f"Paper {n}") for n in range(5)]
    shared_database.share()

    def store(paper) -> str:
        try:
            store_pdf(
                paper_id=paper.pk,
                file=BytesIO(PDF),
                sha256=hashlib.sha256(PDF).hexdigest(),
                size=len(PDF),
                uploaded_by=user,
                replace=False,
            )
        except UploadQuotaFull:
            return "refused"
        return "stored"

    outcomes = shared_database.at_once([lambda paper=paper: store(paper) for paper in papers])

    assert sorted(outcomes) == ["refused"] * 3 + ["stored"] * 2
    assert shared_database.read(lambda: PaperPdf.objects.filter(uploaded_by=user).count()) == 2
    assert len(stored_files(settings)) == 2  # the refused ones' files are deleted again
