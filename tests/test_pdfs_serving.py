"""A stored PDF is served to whoever may see its paper, as a PDF and nothing else; members
upload one where none could be fetched, checked as a fetched one is; curators see them in admin."""

from __future__ import annotations

import hashlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from pdfs.models import PaperPdf
from tests.factories import make_paper
from tests.pdf_files import make_pdf
from tests.pdf_storing import store_test_pdf

pytestmark = pytest.mark.django_db

PDF = make_pdf("A sentence only the PDF holds.")
LOGIN_REQUIRED = "django.contrib.auth.middleware.LoginRequiredMiddleware"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PDF_MAX_BYTES = 20_000


def stored(paper, content: bytes = PDF) -> PaperPdf:
    return store_test_pdf(paper, content)


def pdf_url(paper) -> str:
    return reverse("pdfs:file", args=[paper.pk])


def upload(client, paper, content: bytes, name: str = "paper.pdf"):
    file = SimpleUploadedFile(name, content, content_type="application/pdf")
    return client.post(reverse("pdfs:upload", args=[paper.pk]), {"file": file}, follow=True)


# Serving


def test_a_stored_pdf_is_served_inline_as_a_pdf(client):
    paper = make_paper('A "quoted"\r\ntitle; with/slashes and ünïcode')
    stored(paper)

    response = client.get(pdf_url(paper))

    assert response.status_code == 200
    assert b"".join(response.streaming_content) == PDF
    assert response["Content-Type"] == "application/pdf"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert (
        response["Content-Disposition"]
        == 'inline; filename="a-quoted-title-withslashes-and-unicode.pdf"'
    )


def test_the_pdf_carries_the_sites_content_security_policy_sandboxed(client):
    paper = make_paper()
    stored(paper)

    page_policy = client.get(paper.get_absolute_url())["Content-Security-Policy"]

    # tests/test_served_files.py: a PDF that is also a web page runs nothing as one of ours.
    assert client.get(pdf_url(paper))["Content-Security-Policy"] == f"{page_policy}; sandbox"


def test_an_untitled_paper_s_pdf_is_named_by_its_number(client):
    paper = make_paper("")
    stored(paper)

    disposition = client.get(pdf_url(paper))["Content-Disposition"]

    assert disposition == f'inline; filename="paper-{paper.pk}.pdf"'


def test_a_paper_without_a_pdf_answers_404(client):
    paper = make_paper(pdf_url="https://arxiv.org/pdf/2310.01234")

    assert client.get(pdf_url(paper)).status_code == 404
    assert client.get(reverse("pdfs:file", args=[paper.pk + 1000])).status_code == 404


def test_a_pdf_missing_from_storage_answers_404(client):
    paper = make_paper()
    pdf = stored(paper)
    pdf.file.storage.delete(pdf.file.name)

    assert client.get(pdf_url(paper)).status_code == 404


def test_behind_require_login_a_visitor_is_sent_to_log_in(client, settings, user):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, LOGIN_REQUIRED]
    paper = make_paper()
    stored(paper)

    assert client.get(pdf_url(paper)).status_code == 302
    client.force_login(user)
    assert client.get(pdf_url(paper)).status_code == 200


def test_the_paper_page_links_its_stored_pdf(client):
    paper = make_paper()
    stored(paper)

    content = client.get(paper.get_absolute_url()).content.decode()

    assert f'href="{pdf_url(paper)}"' in content
    assert "Upload this paper" not in content


def test_deleting_a_paper_deletes_its_pdf_file(django_capture_on_commit_callbacks):
    paper = make_paper()
    pdf = stored(paper)
    storage, name = pdf.file.storage, pdf.file.name

    with django_capture_on_commit_callbacks(execute=True):
        paper.delete()

    assert not storage.exists(name)


# Uploading


def test_a_member_sees_the_upload_form_and_a_visitor_does_not(client, user):
    paper = make_paper()
    assert "Upload this paper" not in client.get(paper.get_absolute_url()).content.decode()

    client.force_login(user)
    content = client.get(paper.get_absolute_url()).content.decode()

    assert "Upload this paper" in content
    assert 'enctype="multipart/form-data"' in content


def test_a_member_uploads_a_pdf_and_it_is_recorded_as_theirs(client, user):
    paper = make_paper()
    client.force_login(user)

    response = upload(client, paper, PDF)

    assert "PDF uploaded." in response.content.decode()
    pdf = PaperPdf.objects.get(paper=paper)
    assert pdf.uploaded_by == user
    assert pdf.source_url == ""
    assert pdf.sha256 == hashlib.sha256(PDF).hexdigest()
    assert b"".join(client.get(pdf_url(paper)).streaming_content) == PDF


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"<html><script>alert(1)</script></html>", "it does not start with %PDF-"),
        (b"", "The submitted file is empty."),
        (make_pdf("big", padding=30_000), "more than the limit of 20,000 bytes"),
    ],
)
def test_an_upload_that_is_not_a_pdf_we_keep_is_refused(client, user, settings, content, message):
    paper = make_paper()
    client.force_login(user)

    response = upload(client, paper, content)

    assert message in response.content.decode()
    assert not PaperPdf.objects.exists()
    assert not (settings.MEDIA_ROOT / "pdfs").exists()


def test_an_upload_never_replaces_a_stored_pdf(client, user):
    paper = make_paper()
    before = stored(paper)
    client.force_login(user)

    response = upload(client, paper, make_pdf("Something else."))

    assert "This paper has a PDF already." in response.content.decode()
    assert PaperPdf.objects.get(paper=paper).sha256 == before.sha256


def test_a_visitor_cannot_upload(client, settings):
    paper = make_paper()

    response = client.post(
        reverse("pdfs:upload", args=[paper.pk]),
        {"file": SimpleUploadedFile("p.pdf", PDF, content_type="application/pdf")},
    )

    assert response.status_code == 302 and reverse("login") in response["Location"]
    assert not PaperPdf.objects.exists()


def test_an_upload_needs_post_and_a_csrf_token(user):
    paper = make_paper()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    url = reverse("pdfs:upload", args=[paper.pk])

    assert client.get(url).status_code == 405
    file = SimpleUploadedFile("p.pdf", PDF, content_type="application/pdf")
    assert client.post(url, {"file": file}).status_code == 403
    assert not PaperPdf.objects.exists()


def test_uploading_to_a_missing_paper_answers_404(client, user):
    client.force_login(user)
    file = SimpleUploadedFile("p.pdf", PDF, content_type="application/pdf")

    response = client.post(reverse("pdfs:upload", args=[999_999]), {"file": file})

    assert response.status_code == 404


# Admin


def test_curators_see_a_pdf_s_hash_and_size_read_only(admin_client):
    paper = make_paper("Seen in admin")
    pdf = stored(paper)

    listing = admin_client.get(reverse("admin:pdfs_paperpdf_changelist"))
    page = admin_client.get(reverse("admin:pdfs_paperpdf_change", args=[pdf.pk]))

    assert listing.status_code == 200 and "Seen in admin" in listing.content.decode()
    content = page.content.decode()
    assert pdf.sha256 in content and f'href="{pdf_url(paper)}"' in content
    assert 'name="sha256"' not in content  # shown, not editable
    assert admin_client.get(reverse("admin:pdfs_paperpdf_add")).status_code == 403


# The catalogue's own changes


def test_merging_papers_keeps_the_kept_paper_s_pdf_and_sets_the_merged_one_s_aside(
    django_capture_on_commit_callbacks,
):
    # (tests/test_merge_papers_pdfs.py: the PDF moves to a kept paper without one.)
    from papers.services import merge_papers
    from pdfs.models import SetAsidePdf

    kept, duplicate = make_paper("Kept"), make_paper("Duplicate")
    kept_pdf = stored(kept)
    duplicate_pdf = stored(duplicate, make_pdf("The duplicate's copy."))

    with django_capture_on_commit_callbacks(execute=True):
        merge_papers(target=kept, others=[duplicate])

    assert list(PaperPdf.objects.values_list("paper_id", flat=True)) == [kept.pk]
    assert kept_pdf.file.storage.exists(kept_pdf.file.name)
    assert duplicate_pdf.file.storage.exists(duplicate_pdf.file.name)
    assert SetAsidePdf.objects.get().file.name == duplicate_pdf.file.name
