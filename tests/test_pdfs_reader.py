"""The reader page (pdfs:reader): shown to whoever may see the paper, its policy allowing
WebAssembly there and nowhere else, PDF.js's files served with the types browsers demand, and
a member's "Fetch the PDF" on a paper without a stored PDF asking for it once."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django_tasks import default_task_backend

from highlights.models import Highlight
from pdfs.models import PdfFetchFailure
from tests.factories import make_paper, make_user
from tests.pdf_files import make_text_pdf
from tests.pdf_storing import store_test_pdf

pytestmark = pytest.mark.django_db

PDF = make_text_pdf([["Attention is all we read."], ["A second page."]])
LOGIN_REQUIRED = "django.contrib.auth.middleware.LoginRequiredMiddleware"
WASM = "'wasm-unsafe-eval'"


@pytest.fixture(autouse=True)
def _media_and_tasks(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    # Enqueued tasks are recorded, not run: these tests ask what the page asked for.
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    default_task_backend.clear()


def reader_url(paper) -> str:
    return reverse("pdfs:reader", args=[paper.pk])


def enqueued() -> list[list[int]]:
    return [result.args[0] for result in default_task_backend.results]


def test_a_visitor_reads_a_stored_pdf_with_its_addresses_on_the_page(client):
    paper = make_paper("A paper to read")
    store_test_pdf(paper, PDF)

    response = client.get(reader_url(paper))

    assert response.status_code == 200
    page = response.content.decode()
    assert f'data-pdf-url="{reverse("pdfs:file", args=[paper.pk])}"' in page
    assert 'data-pdfjs-url="/static/vendor/pdfjs/build/pdf.min.mjs"' in page
    assert 'data-worker-url="/static/vendor/pdfjs/build/pdf.worker.min.mjs"' in page
    assert 'data-assets-url="/static/vendor/pdfjs/"' in page
    assert f'<a class="reader-back" href="{paper.get_absolute_url()}">← Back' in page
    assert "<script>" not in page  # no inline script: the CSP allows none
    assert enqueued() == []


def test_behind_require_login_a_visitor_is_sent_to_log_in(client, settings, user):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, LOGIN_REQUIRED]
    paper = make_paper()
    store_test_pdf(paper, PDF)

    assert client.get(reader_url(paper)).status_code == 302
    client.force_login(user)
    assert client.get(reader_url(paper)).status_code == 200


def test_no_such_paper_is_a_404_and_a_merged_one_is_read_where_it_was_merged(client):
    from papers.models import MergedPaper

    kept = make_paper()
    MergedPaper.objects.create(paper_id=987654, into=kept)

    assert client.get(reverse("pdfs:reader", args=[987655])).status_code == 404
    merged = client.get(reverse("pdfs:reader", args=[987654]))
    assert merged.status_code == 301
    assert merged["Location"] == reader_url(kept)


def test_only_the_reader_page_may_compile_webassembly(client):
    paper = make_paper()
    store_test_pdf(paper, PDF)

    reader_policy = client.get(reader_url(paper))["Content-Security-Policy"]
    paper_policy = client.get(paper.get_absolute_url())["Content-Security-Policy"]
    list_policy = client.get("/")["Content-Security-Policy"]

    assert f"script-src 'self' {WASM}" in reader_policy
    assert "worker-src 'self'" in reader_policy
    assert "unsafe-eval'" not in reader_policy.replace(WASM, "")
    assert WASM not in paper_policy and WASM not in list_policy
    assert "worker-src 'self'" in paper_policy


@pytest.fixture
def static_client(settings):
    # WhiteNoise serving from the finders, as under `runserver`: a new client loads the
    # middleware again with these settings.
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True
    return Client()


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("vendor/pdfjs/build/pdf.min.mjs", "text/javascript"),
        ("vendor/pdfjs/build/pdf.worker.min.mjs", "text/javascript"),
        ("vendor/pdfjs/wasm/openjpeg.wasm", "application/wasm"),
        ("vendor/pdfjs/wasm/jbig2.wasm", "application/wasm"),
        ("js/reader/reader.js", "text/javascript"),
    ],
)
def test_pdfjs_files_are_served_with_the_types_browsers_demand(static_client, path, content_type):
    response = static_client.get(f"/static/{path}")

    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == content_type


def test_django_static_view_knows_the_types_too():
    import mimetypes

    assert mimetypes.guess_type("pdf.worker.min.mjs")[0] == "text/javascript"
    assert mimetypes.guess_type("openjpeg.wasm")[0] == "application/wasm"


def test_only_pdfjs_worker_may_compile_webassembly_among_static_files(static_client):
    worker = static_client.get("/static/vendor/pdfjs/build/pdf.worker.min.mjs")
    library = static_client.get("/static/vendor/pdfjs/build/pdf.min.mjs")

    assert f"script-src 'self' {WASM}" in worker["Content-Security-Policy"]
    assert WASM not in library["Content-Security-Policy"]


def test_nothing_vendored_points_elsewhere_or_carries_source_maps():
    from pathlib import Path

    vendored = Path(__file__).resolve().parents[1] / "static" / "vendor" / "pdfjs"
    names = {path.name for path in vendored.rglob("*")}
    assert "LICENSE" in names and "README.md" in names
    assert not [name for name in names if name.endswith(".map")]
    assert not (vendored / "legacy").exists()
    version = (vendored / "VERSION").read_text().strip()
    assert tuple(int(part) for part in version.split(".")) >= (6, 2, 108)


# No stored PDF


def test_an_open_asks_for_nothing_and_a_members_fetch_asks_once(client, user):
    paper = make_paper(pdf_url="https://arxiv.org/pdf/2310.01234")

    first = client.get(reader_url(paper))
    client.force_login(user)
    offered = client.get(reader_url(paper))
    client.post(reverse("pdfs:fetch", args=[paper.pk]))
    client.post(reverse("pdfs:fetch", args=[paper.pk]))
    again = client.get(reader_url(paper))

    assert "Members can fetch it from its PDF link" in first.content.decode()
    assert "Fetch the PDF" in offered.content.decode()
    assert "It has been asked for from its PDF link" in again.content.decode()
    assert enqueued() == [[paper.pk]]  # asking again does not queue it again
    assert f'href="{paper.get_absolute_url()}"' in first.content.decode()
    assert WASM in first["Content-Security-Policy"]


def test_a_paper_without_a_link_offers_a_member_the_upload(client, user):
    paper = make_paper(pdf_url="")

    visitor = client.get(reader_url(paper)).content.decode()
    client.force_login(user)
    member = client.get(reader_url(paper)).content.decode()

    assert "This paper has no PDF link" in visitor
    assert "pdf-upload-file" not in visitor
    assert f'action="{reverse("pdfs:upload", args=[paper.pk])}"' in member
    assert enqueued() == []


def test_a_link_refused_lately_is_not_asked_again(client):
    from datetime import timedelta

    from django.utils import timezone

    paper = make_paper(pdf_url="https://arxiv.org/pdf/2310.01234")
    now = timezone.now()
    PdfFetchFailure.objects.create(
        paper=paper,
        url=paper.pdf_url,
        reason="not a PDF",
        message="an HTML page",
        failed_at=now,
        retry_after=now + timedelta(days=1),
    )

    page = client.get(reader_url(paper)).content.decode()

    assert "could not be fetched from its PDF link lately" in page
    assert enqueued() == []


# The paper page's Read button


def test_the_paper_page_has_read_where_a_pdf_is_stored_or_linked(client):
    stored = make_paper(pdf_url="")
    store_test_pdf(stored, PDF)
    linked = make_paper(pdf_url="https://arxiv.org/pdf/2310.01234")
    neither = make_paper(pdf_url="")

    def has_read(paper) -> bool:
        page = client.get(paper.get_absolute_url()).content.decode()
        return f'href="{reader_url(paper)}">Read</a>' in page

    assert has_read(stored) and has_read(linked)
    assert not has_read(neither)


# Privacy and queries


def test_the_reader_page_never_shows_another_members_private_highlight(client):
    mira, theo = make_user("mira"), make_user("theo")
    paper = make_paper()
    pdf = store_test_pdf(paper, PDF)
    fields = {"paper": paper, "page": 1, "start": 0, "end": 9, "pdf_sha256": pdf.sha256}
    Highlight.objects.create(
        author=theo, exact="Attention", note="theo's private thought", **fields
    )
    Highlight.objects.create(
        author=theo, exact="Attention", note="theo shares this", visibility="lab", **fields
    )

    client.force_login(mira)
    page = client.get(reader_url(paper)).content.decode()

    assert "theo shares this" in page
    assert "theo&#x27;s private thought" not in page and "private thought" not in page


@pytest.mark.parametrize("highlights", [1, 6])
def test_the_reader_page_costs_the_same_queries_however_many_highlights(
    client, user, django_assert_num_queries, highlights
):
    # The paper with its authors, tags and PDF in one query, the workspace panel's own (notes,
    # lists, comments, highlights), the session and its user, the notifications count.
    paper = make_paper(authors=["Ada Lovelace", "Alan Turing"])
    pdf = store_test_pdf(paper, PDF)
    for _ in range(highlights):
        Highlight.objects.create(
            paper=paper,
            author=user,
            page=1,
            start=0,
            end=9,
            exact="Attention",
            visibility="lab",
            pdf_sha256=pdf.sha256,
        )
    client.force_login(user)
    client.get(reader_url(paper))  # sessions, caches warmed

    with django_assert_num_queries(11):
        assert client.get(reader_url(paper)).status_code == 200


# Byte ranges on the PDF file, which PDF.js asks for in a long file


@pytest.fixture
def stored_pdf():
    paper = make_paper()
    store_test_pdf(paper, PDF)
    return reverse("pdfs:file", args=[paper.pk])


def body(response) -> bytes:
    return b"".join(response.streaming_content)


def test_the_whole_file_says_it_takes_ranges(client, stored_pdf):
    response = client.get(stored_pdf)

    assert response.status_code == 200
    assert response["Accept-Ranges"] == "bytes"
    assert body(response) == PDF


@pytest.mark.parametrize(
    ("header", "first", "last"),
    [
        ("bytes=0-99", 0, 99),
        ("bytes=100-", 100, len(PDF) - 1),
        ("bytes=-50", len(PDF) - 50, len(PDF) - 1),
        (f"bytes=10-{len(PDF) + 500}", 10, len(PDF) - 1),  # cut at the end of the file
    ],
)
def test_a_range_is_answered_with_that_part(client, stored_pdf, header, first, last):
    response = client.get(stored_pdf, HTTP_RANGE=header)

    assert response.status_code == 206
    assert response["Content-Range"] == f"bytes {first}-{last}/{len(PDF)}"
    assert response["Content-Length"] == str(last - first + 1)
    assert response["Content-Type"] == "application/pdf"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert body(response) == PDF[first : last + 1]


@pytest.mark.parametrize("header", ["bytes=0-9,20-29", "bytes=9-3", "lines=1-2", "bytes=-"])
def test_a_range_not_understood_gets_the_whole_file(client, stored_pdf, header):
    response = client.get(stored_pdf, HTTP_RANGE=header)

    assert response.status_code == 200
    assert body(response) == PDF


def test_a_range_past_the_end_is_refused(client, stored_pdf):
    response = client.get(stored_pdf, HTTP_RANGE=f"bytes={len(PDF)}-")

    assert response.status_code == 416
    assert response["Content-Range"] == f"bytes */{len(PDF)}"


def test_the_page_preloads_every_module_the_reader_imports(client, stored_pdf):
    import re
    from pathlib import Path

    from pdfs.views import READER_MODULES

    modules = Path(__file__).resolve().parents[1] / "static" / "js" / "reader"
    imported = set()
    for source in modules.glob("*.js"):
        imported |= set(re.findall(r'from "\./([\w.]+)"', source.read_text()))
    paper_id = stored_pdf.split("/")[2]

    page = client.get(reverse("pdfs:reader", args=[paper_id])).content.decode()

    assert imported == set(READER_MODULES)
    for module in READER_MODULES:
        assert f'<link rel="modulepreload" href="/static/js/reader/{module}">' in page


def test_an_upload_from_the_reader_returns_to_the_reader(client, user, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.PDF_MAX_BYTES = 20_000
    from_paper_page, from_reader = make_paper(pdf_url=""), make_paper(pdf_url="")
    client.force_login(user)
    assert 'name="from" value="reader"' in client.get(reader_url(from_reader)).content.decode()

    def upload(paper, **fields):
        file = SimpleUploadedFile("paper.pdf", PDF, content_type="application/pdf")
        return client.post(reverse("pdfs:upload", args=[paper.pk]), {"file": file, **fields})

    # Anything but "reader" leads to the paper's page: never a URL taken from the request.
    elsewhere = upload(from_paper_page, **{"from": "https://elsewhere.example/"})
    assert elsewhere["Location"] == from_paper_page.get_absolute_url()
    assert upload(from_reader, **{"from": "reader"})["Location"] == reader_url(from_reader)
    assert 'data-pdf-url="' in client.get(reader_url(from_reader)).content.decode()
