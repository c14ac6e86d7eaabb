"""Files the site hands out, as browsers must take them (issue 43: findings 3 and 13).

A stored PDF (fetched, or a member's upload that may be an HTML page too) and every export are
sent with `Content-Security-Policy: ... sandbox`, `nosniff` and a Content-Disposition (inline
for the PDF, which the reader fetches, attachment for exports). A PDF's `Range` header is read
whatever its numbers: thousands of digits are answered 416 or the whole file, as RFC 9110 says,
never a server error; an `If-Range` naming another version gets the whole file.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotations import tasks
from annotations.models import ExportJob
from papers.models import TagKind
from tests.factories import make_paper, make_tag, make_user
from tests.highlight_helpers import make_highlight
from tests.pdf_files import make_pdf
from tests.pdf_storing import store_test_pdf

pytestmark = pytest.mark.django_db

PDF = make_pdf("A sentence only the PDF holds.", padding=200)
SIZE = len(PDF)
BIG = "9" * 5_000
# A PDF that is also a web page: what a browser would run if it sniffed the type or rendered
# the file as a document of this site.
POLYGLOT = (
    b"%PDF-1.4\n<html><body><script>fetch('/accounts/').then(r => r.text())</script>"
    b"</body></html>\n" + PDF[len(b"%PDF-1.4\n") :]
)


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def paper():
    paper = make_paper("Attention: a <b>polyglot</b> & friends")
    store_test_pdf(paper, PDF)
    return paper


def pdf_url(paper) -> str:
    return reverse("pdfs:file", args=[paper.pk])


def body(response) -> bytes:
    return b"".join(response.streaming_content)


def directives(policy: str) -> set[str]:
    return {directive.strip() for directive in policy.split(";")}


# --- Range: hostile numbers ------------------------------------------------------------------


def test_a_5000_digit_first_byte_is_past_the_end_416(client, paper):
    response = client.get(pdf_url(paper), headers={"Range": f"bytes={BIG}-"})

    assert response.status_code == 416
    assert response["Content-Range"] == f"bytes */{SIZE}"


@pytest.mark.parametrize("header", [f"bytes=-{BIG}", f"bytes=0-{BIG}"])
def test_a_5000_digit_suffix_or_last_byte_is_the_whole_file(client, paper, header):
    # RFC 9110, 14.1.2: a last byte past the end is the last byte; a suffix longer than the
    # file is the whole file.
    response = client.get(pdf_url(paper), headers={"Range": header})

    assert response.status_code == 206
    assert response["Content-Range"] == f"bytes 0-{SIZE - 1}/{SIZE}"
    assert body(response) == PDF


@pytest.mark.parametrize(
    ("header", "first", "last"),
    [
        (f"bytes={'0' * 5_000}5-9", 5, 9),  # leading zeros are no number's size
        (f"bytes=10-{'0' * 5_000}19", 10, 19),
        ("bytes= 0-9 ", 0, 9),  # spaces around the list's element
        ("bytes=0-9,", 0, 9),  # an empty element is no range
        ("Bytes=0-9", 0, 9),  # the unit is case-insensitive
        (f"bytes=-{SIZE + 1}", 0, SIZE - 1),
    ],
)
def test_a_range_in_any_valid_spelling_is_that_part(client, paper, header, first, last):
    response = client.get(pdf_url(paper), headers={"Range": header})

    assert response.status_code == 206
    assert response["Content-Range"] == f"bytes {first}-{last}/{SIZE}"
    assert body(response) == PDF[first : last + 1]


@pytest.mark.parametrize(
    "header",
    [
        f"bytes={BIG}-{BIG}",
        f"bytes={'0' * 5_000}{SIZE}-",
        f"bytes={2**64}-",
        "bytes=-0",
    ],
)
def test_a_range_past_the_end_in_any_spelling_is_416(client, paper, header):
    response = client.get(pdf_url(paper), headers={"Range": header})

    assert response.status_code == 416
    assert response["Content-Range"] == f"bytes */{SIZE}"


@pytest.mark.parametrize(
    "header",
    [
        f"bytes=0-1,{BIG}-",  # several ranges: the whole file, as the RFC allows
        f"bytes={BIG}-,-{BIG}",
        "bytes=0 - 9",
        "bytes=\u0663-",  # a digit of another script is no number of HTTP's
        f"{BIG}=0-9",
        "bytes=0-9-",
    ],
)
def test_several_ranges_or_one_not_understood_are_the_whole_file(client, paper, header):
    response = client.get(pdf_url(paper), headers={"Range": header})

    assert response.status_code == 200
    assert body(response) == PDF


# --- If-Range --------------------------------------------------------------------------------


def test_every_answer_names_the_files_version(client, paper):
    etag = f'"{paper.pdf_file.sha256}"'

    assert client.get(pdf_url(paper))["ETag"] == etag
    assert client.get(pdf_url(paper), headers={"Range": "bytes=0-9"})["ETag"] == etag


def test_a_range_if_the_file_is_still_that_version_is_that_part(client, paper):
    etag = f'"{paper.pdf_file.sha256}"'

    response = client.get(pdf_url(paper), headers={"Range": "bytes=0-9", "If-Range": etag})

    assert response.status_code == 206
    assert body(response) == PDF[:10]


@pytest.mark.parametrize(
    "if_range",
    [
        '"another-version"',
        "W/{etag}",  # weak tags never match for a range
        "Sun, 06 Nov 1994 08:49:37 GMT",  # no Last-Modified is sent: no date matches
        f"Sun, 06 Nov {BIG} 08:49:37 GMT",
        BIG,
    ],
)
def test_a_range_if_the_file_is_another_version_is_the_whole_file(client, paper, if_range):
    if_range = if_range.format(etag=f'"{paper.pdf_file.sha256}"')

    response = client.get(pdf_url(paper), headers={"Range": "bytes=0-9", "If-Range": if_range})

    assert response.status_code == 200
    assert body(response) == PDF


# --- A PDF is never a page of the site -------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, {"Range": "bytes=0-99"}])
def test_a_stored_pdf_is_sandboxed_unsniffed_and_inline_with_a_safe_name(client, paper, headers):
    page_policy = client.get(paper.get_absolute_url())["Content-Security-Policy"]

    response = client.get(pdf_url(paper), headers=headers)

    assert response.status_code in (200, 206)
    assert response["Content-Type"] == "application/pdf"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert directives(response["Content-Security-Policy"]) == directives(page_policy) | {"sandbox"}
    assert (
        response["Content-Disposition"] == 'inline; filename="attention-a-bpolyglotb-friends.pdf"'
    )


def test_an_uploaded_pdf_that_is_also_a_web_page_is_served_sandboxed(client):
    paper = make_paper("Polyglot")
    client.force_login(make_user("member"))
    file = SimpleUploadedFile("paper.pdf", POLYGLOT, content_type="application/pdf")
    client.post(reverse("pdfs:upload", args=[paper.pk]), {"file": file})
    client.logout()  # served to whoever may browse, visitors included

    response = client.get(pdf_url(paper))

    assert body(response) == POLYGLOT  # stored as uploaded: the headers are the defence
    assert response["Content-Type"] == "application/pdf"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in directives(response["Content-Security-Policy"])
    assert response["Content-Disposition"] == 'inline; filename="polyglot.pdf"'


def test_the_reader_page_itself_is_not_sandboxed_and_may_fetch_the_file(client, paper):
    # A sandboxed page could run no script: PDF.js must run on the reader's page and fetch the
    # file from this origin (connect-src 'self').
    policy = directives(
        client.get(reverse("pdfs:reader", args=[paper.pk]))["Content-Security-Policy"]
    )

    assert "sandbox" not in policy
    assert "connect-src 'self'" in policy


# --- Exports are attachments, sandboxed too --------------------------------------------------


def assert_served_as_attachment(response, filename: str) -> None:
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{filename}"'
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in directives(response["Content-Security-Policy"])


def test_an_export_is_a_sandboxed_attachment(client):
    tag = make_tag("Poster", TagKind.TRACK)
    make_paper("<script>alert(1)</script>", tags=[(tag.name, tag.kind)])

    response = client.get(reverse("annotations:tag-export", args=[tag.kind, tag.slug, "csv"]))

    assert_served_as_attachment(response, "poster.csv")


def test_a_prepared_export_is_a_sandboxed_attachment(client, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    tag = make_tag("Poster", TagKind.TRACK)
    make_paper("A paper", tags=[(tag.name, tag.kind)])
    member = make_user("member")
    tasks.start_export(member, reverse("annotations:tag-export", args=[tag.kind, tag.slug, "bib"]))
    client.force_login(member)

    job = ExportJob.objects.get(owner=member)
    response = client.get(reverse("annotations:export-download", args=[job.pk]))

    assert_served_as_attachment(response, "poster.bib")


def test_a_notes_download_is_a_sandboxed_attachment(client, user):
    paper = make_paper("Deep Nets")
    make_highlight(user, paper, exact="A quote")
    client.force_login(user)

    response = client.get(reverse("highlights:paper-export", args=[paper.pk]))

    assert_served_as_attachment(response, "notes-deep-nets.md")
