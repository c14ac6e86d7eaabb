"""Issue 43, finding 2: a paper merge never deletes a PDF that no row replaces.

Merged into a paper without a PDF, a paper's PDF moves to it: served at the kept paper's PDF
URL, its text found by search under the kept paper, its highlights still anchored in it, a
member's upload as a fetched file. Merged into a paper with its own, the other file stays on
storage as a set-aside PDF of the kept paper, which a curator can download or delete.
"""

from __future__ import annotations

import hashlib
from io import BytesIO

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from papers.models import Paper
from papers.services import merge_papers
from pdfs import texts
from pdfs.models import PaperPdf, PdfText, SetAsidePdf, pdf_storage
from pdfs.storing import store_pdf
from tests.factories import make_paper, make_user
from tests.highlight_helpers import make_highlight
from tests.pdf_files import one_line_pages_pdf as paper_pdf

pytestmark = pytest.mark.django_db

PHRASE = "quasiperiodic lattice sampler"


@pytest.fixture(autouse=True)
def _media_and_tasks(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    # Tasks run when enqueued, as the worker would run them (the PDF's text is read).
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


def store(paper, content: bytes, capture, **fields) -> PaperPdf:
    """Store the file as a fetch does and run what its commit sets off (the text task)."""
    fields.setdefault("source_url", "https://arxiv.org/pdf/2401.00001")
    with capture(execute=True):
        store_pdf(
            paper_id=paper.pk,
            file=BytesIO(content),
            sha256=hashlib.sha256(content).hexdigest(),
            size=len(content),
            **fields,
        )
    return PaperPdf.objects.get(paper=paper)


def merge(capture, keep, *others):
    with capture(execute=True):  # the commit's work: files deleted, text read
        return merge_papers(target=keep, others=list(others))


def served(client, paper) -> bytes:
    response = client.get(reverse("pdfs:file", args=[paper.pk]))
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def found_titles(client, query: str) -> set[str]:
    response = client.get(reverse("papers:list"), {"q": query})
    return {paper.title for paper in response.context["papers"]}


def on_storage(name: str) -> bool:
    return pdf_storage().exists(name)


# Into a paper without a PDF: the PDF moves


def test_the_merged_paper_s_pdf_is_served_and_searched_under_the_kept_paper(
    client, user, django_capture_on_commit_callbacks
):
    keep = make_paper("Kept without a PDF", abstract="Short.")
    duplicate = make_paper("Duplicate with one", abstract="Short too.")
    content = paper_pdf("Introduction.", f"Our {PHRASE} converges.")
    stored = store(duplicate, content, django_capture_on_commit_callbacks)
    highlight = make_highlight(user, duplicate, pdf_sha256=stored.sha256)

    result = merge(django_capture_on_commit_callbacks, keep, duplicate)

    assert served(client, keep) == content
    assert on_storage(stored.file.name)
    moved = PaperPdf.objects.get(paper=keep)
    assert (moved.pk, moved.sha256, moved.source_url) == (
        stored.pk,
        stored.sha256,
        stored.source_url,
    )
    assert PdfText.objects.get(pdf__paper=keep).text == f"Introduction.\fOur {PHRASE} converges."
    assert found_titles(client, f'"{PHRASE}"') == {"Kept without a PDF"}
    highlight.refresh_from_db()
    assert highlight.paper_id == keep.pk and not highlight.needs_anchor(moved.sha256)
    client.force_login(user)
    (item,) = client.get(reverse("highlights:list", args=[keep.pk])).json()["highlights"]
    assert (item["id"], item["needs_anchor"]) == (highlight.pk, False)
    assert "1 paper PDF" in result.summary()


def test_a_member_s_uploaded_pdf_moves_to_the_kept_paper(
    client, user, django_capture_on_commit_callbacks
):
    keep, duplicate = make_paper("Kept"), make_paper("Duplicate")
    content = paper_pdf("A member's only copy.")
    client.force_login(user)
    upload = SimpleUploadedFile("copy.pdf", content, content_type="application/pdf")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("pdfs:upload", args=[duplicate.pk]), {"file": upload})
    uploaded = PaperPdf.objects.get(paper=duplicate)
    assert uploaded.uploaded_by == user

    merge(django_capture_on_commit_callbacks, keep, duplicate)

    assert served(client, keep) == content
    assert on_storage(uploaded.file.name)
    assert PaperPdf.objects.get(paper=keep).uploaded_by == user


def test_a_pdf_whose_text_was_not_read_yet_is_read_under_the_kept_paper(
    client, settings, django_capture_on_commit_callbacks
):
    keep, duplicate = make_paper("Kept", abstract="Short."), make_paper("Duplicate")
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    store(duplicate, paper_pdf(f"The {PHRASE} again."), django_capture_on_commit_callbacks)
    assert not PdfText.objects.exists()  # queued for the duplicate, not run
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}

    merge(django_capture_on_commit_callbacks, keep, duplicate)

    assert PdfText.objects.get(pdf__paper=keep).text == f"The {PHRASE} again."
    assert found_titles(client, f'"{PHRASE}"') == {"Kept"}


def test_a_text_read_while_its_pdf_moved_is_searched_under_the_kept_paper(
    client, settings, monkeypatch, django_capture_on_commit_callbacks
):
    keep, duplicate = make_paper("Kept", abstract="Short."), make_paper("Duplicate")
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    store(duplicate, paper_pdf(f"The {PHRASE} again."), django_capture_on_commit_callbacks)
    read = texts._extract

    def read_while_a_curator_merges(pdf):
        extracted = read(pdf)
        merge_papers(target=keep, others=[duplicate])
        assert found_titles(client, f'"{PHRASE}"') == set()  # the index caught up without it
        return extracted

    monkeypatch.setattr(texts, "_extract", read_while_a_curator_merges)
    texts.extract_paper_text(duplicate.pk)

    assert found_titles(client, f'"{PHRASE}"') == {"Kept"}


def test_the_admin_merge_action_moves_the_pdf_too(client, django_capture_on_commit_callbacks):
    keep, duplicate = make_paper("Kept"), make_paper("Duplicate")
    content = paper_pdf("Fetched for the duplicate.")
    stored = store(duplicate, content, django_capture_on_commit_callbacks)
    curator = make_user("curator", is_staff=True)
    curator.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="papers",
            codename__in=["view_paper", "change_paper", "delete_paper"],
        )
    )
    client.force_login(curator)
    data = {
        "action": "merge_papers",
        "_selected_action": [keep.pk, duplicate.pk],
        "confirm": "yes",
        "target": keep.pk,
    }

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("admin:papers_paper_changelist"), data, follow=True)

    assert "1 paper PDF" in response.content.decode()
    assert not Paper.objects.filter(pk=duplicate.pk).exists()
    assert served(client, keep) == content
    assert on_storage(stored.file.name)


# Two PDFs: the kept paper's is served, the other's set aside


def test_with_two_pdfs_the_kept_one_is_served_and_the_other_set_aside(
    client, admin_client, user, django_capture_on_commit_callbacks
):
    keep, duplicate = make_paper("Kept"), make_paper("Duplicate")
    kept_content, other_content = paper_pdf("The kept file."), paper_pdf("The other file.")
    kept = store(keep, kept_content, django_capture_on_commit_callbacks)
    other = store(duplicate, other_content, django_capture_on_commit_callbacks, uploaded_by=user)
    highlight = make_highlight(user, duplicate, pdf_sha256=other.sha256)

    result = merge(django_capture_on_commit_callbacks, keep, duplicate)

    assert served(client, keep) == kept_content
    assert PaperPdf.objects.get().pk == kept.pk
    assert on_storage(kept.file.name) and on_storage(other.file.name)
    aside = SetAsidePdf.objects.get()
    assert (aside.paper_id, aside.merged_paper_id, aside.file.name) == (
        keep.pk,
        duplicate.pk,
        other.file.name,
    )
    assert (aside.sha256, aside.size, aside.uploaded_by) == (other.sha256, other.size, user)
    assert "1 set-aside PDF" in result.summary()
    # The highlight is found again in the kept file by the reader.
    highlight.refresh_from_db()
    assert highlight.paper_id == keep.pk and highlight.needs_anchor(kept.sha256)
    # A curator downloads it from admin; a member cannot.
    url = reverse("admin:pdfs_setasidepdf_file", args=[aside.pk])
    download = admin_client.get(url)
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == other_content
    assert download["Content-Disposition"].startswith("attachment;")
    client.force_login(user)
    assert client.get(url).status_code == 302  # to the admin's login page
    client.force_login(make_user("clerk", is_staff=True))  # staff without the permission
    assert client.get(url).status_code == 403
    assert (
        admin_client.get(reverse("admin:pdfs_setasidepdf_file", args=["9" * 40])).status_code == 404
    )


def test_a_set_aside_pdf_follows_its_paper_into_a_later_merge(django_capture_on_commit_callbacks):
    first, second, third = make_paper("First"), make_paper("Second"), make_paper("Third")
    for paper in (first, second, third):
        store(paper, paper_pdf(f"The file of {paper.title}."), django_capture_on_commit_callbacks)
    merge(django_capture_on_commit_callbacks, second, third)

    merge(django_capture_on_commit_callbacks, first, second)

    assert sorted(SetAsidePdf.objects.values_list("paper_id", "merged_paper_id")) == [
        (first.pk, second.pk),
        (first.pk, third.pk),
    ]
    assert all(on_storage(aside.file.name) for aside in SetAsidePdf.objects.all())


# Positive controls: files no row names still go


def test_a_file_of_the_kept_paper_s_very_bytes_goes_with_its_paper(
    django_capture_on_commit_callbacks,
):
    keep, duplicate = make_paper("Kept"), make_paper("Duplicate")
    content = paper_pdf("One file, fetched twice.")
    kept = store(keep, content, django_capture_on_commit_callbacks)
    copy = store(duplicate, content, django_capture_on_commit_callbacks)
    assert kept.file.name != copy.file.name

    merge(django_capture_on_commit_callbacks, keep, duplicate)

    assert not SetAsidePdf.objects.exists()
    assert on_storage(kept.file.name) and not on_storage(copy.file.name)


def test_deleting_a_set_aside_pdf_or_the_kept_paper_deletes_the_files(
    admin_client, django_capture_on_commit_callbacks
):
    keep, duplicate, third = make_paper("Kept"), make_paper("Duplicate"), make_paper("Third")
    kept = store(keep, paper_pdf("Kept."), django_capture_on_commit_callbacks)
    other = store(duplicate, paper_pdf("Other."), django_capture_on_commit_callbacks)
    last = store(third, paper_pdf("Third."), django_capture_on_commit_callbacks)
    merge(django_capture_on_commit_callbacks, keep, duplicate, third)
    first_aside = SetAsidePdf.objects.get(merged_paper_id=duplicate.pk)

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            reverse("admin:pdfs_setasidepdf_delete", args=[first_aside.pk]), {"post": "yes"}
        )
    assert response.status_code == 302
    assert not on_storage(other.file.name) and on_storage(last.file.name)

    with django_capture_on_commit_callbacks(execute=True):
        Paper.objects.get(pk=keep.pk).delete()
    assert not on_storage(kept.file.name) and not on_storage(last.file.name)


def test_merging_a_paper_without_a_pdf_into_one_with_a_pdf_changes_nothing_of_it(
    client, django_capture_on_commit_callbacks
):
    keep, duplicate = make_paper("Kept"), make_paper("Duplicate")
    content = paper_pdf("The kept file.")
    kept = store(keep, content, django_capture_on_commit_callbacks)

    merge(django_capture_on_commit_callbacks, keep, duplicate)

    assert served(client, keep) == content
    assert list(PaperPdf.objects.all()) == [kept] and not SetAsidePdf.objects.exists()
