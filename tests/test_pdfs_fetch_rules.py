"""The rules of one PDF download (pdfs.fetching), with the HTTP answers replayed by respx: which
URLs may be asked, how redirects, retries and waits go. Nothing reaches the network."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import respx

from pdfs.fetching import PdfFetcher, PdfRefused, Refusal, url_problem
from tests.pdf_files import make_pdf

PDF = make_pdf("Replayed.")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.PDF_FETCH_HOSTS = ["arxiv.org", "openreview.net", "http://127.0.0.1:8765"]
    settings.PDF_MAX_BYTES = 100_000
    settings.PDF_FETCH_TIMEOUT = 60


class FakeClock:
    """time.monotonic and time.sleep for a fetcher: sleeping moves the clock on."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def fetcher(clock: FakeClock | None = None) -> PdfFetcher:
    clock = clock or FakeClock()
    return PdfFetcher(sleep=clock.sleep, clock=clock, backoff=1.0)


def refusal(url: str, clock: FakeClock | None = None) -> PdfRefused:
    with fetcher(clock) as pdfs, pytest.raises(PdfRefused) as refused:
        pdfs.fetch(url)
    return refused.value


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://arxiv.org/pdf/2310.01234", ""),
        ("https://ARXIV.org/pdf/2310.01234", ""),
        ("https://arxiv.org:443/pdf/2310.01234", ""),
        ("http://127.0.0.1:8765/paper.pdf", ""),
        ("http://arxiv.org/pdf/2310.01234", "http://arxiv.org is not in PDF_FETCH_HOSTS"),
        ("https://arxiv.org:8443/x.pdf", "https://arxiv.org:8443 is not in PDF_FETCH_HOSTS"),
        ("https://www.arxiv.org/x.pdf", "www.arxiv.org is not in PDF_FETCH_HOSTS"),
        ("https://arxiv.org.example.com/x.pdf", "arxiv.org.example.com is not in PDF_FETCH_HOSTS"),
        ("https://127.0.0.1:8765/x.pdf", "https://127.0.0.1:8765 is not in PDF_FETCH_HOSTS"),
        ("http://127.0.0.1:8766/x.pdf", "http://127.0.0.1:8766 is not in PDF_FETCH_HOSTS"),
        ("https://user:pw@arxiv.org/x.pdf", "a URL with credentials in it is never fetched"),
        ("ftp://arxiv.org/x.pdf", "not an http(s) URL"),
        ("file:///etc/passwd", "not an http(s) URL"),
        ("https://arxiv.org:99999/x.pdf", "not a usable URL"),
    ],
)
def test_which_urls_may_be_fetched(url, problem):
    assert url_problem(url) == problem


@respx.mock
def test_a_relative_redirect_is_followed_on_the_same_host():
    respx.get("https://arxiv.org/pdf/1").respond(301, headers={"Location": "/pdf/1v2"})
    respx.get("https://arxiv.org/pdf/1v2").respond(200, content=PDF)

    with fetcher() as pdfs, pdfs.fetch("https://arxiv.org/pdf/1") as pdf:
        assert pdf.final_url == "https://arxiv.org/pdf/1v2"
        assert pdf.file.read() == PDF
        assert pdf.size == len(PDF)


@respx.mock
def test_a_redirect_off_the_list_is_refused_before_it_is_asked():
    respx.get("https://arxiv.org/pdf/1").respond(
        302, headers={"Location": "http://169.254.169.254/latest/meta-data/"}
    )
    metadata = respx.get("http://169.254.169.254/latest/meta-data/")

    refused = refusal("https://arxiv.org/pdf/1")

    assert refused.reason == Refusal.REDIRECT
    assert "redirected to http://169.254.169.254/latest/meta-data/" in str(refused)
    assert not metadata.called


@respx.mock
def test_endless_redirects_are_refused():
    respx.get("https://arxiv.org/loop").respond(302, headers={"Location": "/loop"})

    refused = refusal("https://arxiv.org/loop")

    assert refused.reason == Refusal.REDIRECT
    assert str(refused) == "https://arxiv.org/loop: more than 5 redirects"


@respx.mock
def test_a_429_waits_what_retry_after_asks_then_tries_again():
    route = respx.get("https://openreview.net/pdf?id=abc")
    route.side_effect = [
        httpx.Response(429, headers={"Retry-After": "7"}),
        httpx.Response(200, content=PDF),
    ]
    clock = FakeClock()

    with fetcher(clock) as pdfs, pdfs.fetch("https://openreview.net/pdf?id=abc") as pdf:
        assert pdf.size == len(PDF)
    assert clock.slept == [7.0]


@respx.mock
def test_a_wait_past_the_time_limit_is_refused_without_waiting():
    respx.get("https://arxiv.org/pdf/1").respond(503, headers={"Retry-After": "3600"})
    clock = FakeClock()

    refused = refusal("https://arxiv.org/pdf/1", clock)

    assert refused.reason == Refusal.TIMEOUT
    assert "HTTP 503 Service Unavailable, asked to wait 3600 s" in str(refused)
    assert clock.slept == []


@respx.mock
def test_a_server_that_stays_unwell_is_given_up_on_after_three_tries():
    route = respx.get("https://arxiv.org/pdf/1").respond(502)
    clock = FakeClock()

    refused = refusal("https://arxiv.org/pdf/1", clock)

    assert route.call_count == 3
    assert clock.slept == [1.0, 2.0]  # the backoff doubles
    assert refused.reason == Refusal.HTTP
    assert str(refused) == ("https://arxiv.org/pdf/1: gave up after 3 tries (HTTP 502 Bad Gateway)")


@respx.mock
def test_a_refused_connection_is_tried_again():
    route = respx.get("https://arxiv.org/pdf/1")
    route.side_effect = [httpx.ConnectError("connection refused"), httpx.Response(200, content=PDF)]

    with fetcher() as pdfs, pdfs.fetch("https://arxiv.org/pdf/1") as pdf:
        assert pdf.size == len(PDF)
    assert route.call_count == 2


@respx.mock
def test_a_client_error_is_not_tried_again():
    route = respx.get("https://arxiv.org/pdf/1").respond(403)

    refused = refusal("https://arxiv.org/pdf/1")

    assert route.call_count == 1
    assert refused.status == 403
    assert str(refused) == "https://arxiv.org/pdf/1: answered HTTP 403 Forbidden"


@respx.mock
def test_the_size_limit_counts_the_bytes_after_decompression():
    import gzip

    bomb = gzip.compress(make_pdf("x", padding=200_000))
    respx.get("https://arxiv.org/pdf/1").respond(
        200, content=bomb, headers={"Content-Encoding": "gzip"}
    )

    refused = refusal("https://arxiv.org/pdf/1")

    assert len(bomb) < 100_000
    assert refused.reason == Refusal.TOO_LARGE


@respx.mock
def test_an_empty_answer_is_not_a_pdf():
    respx.get("https://arxiv.org/pdf/1").respond(200, content=b"")

    refused = refusal("https://arxiv.org/pdf/1")

    assert refused.reason == Refusal.NOT_PDF
    assert "does not start with %PDF- (it starts with '')" in str(refused)


def _settings_error(**env: str) -> str:
    environment = {**os.environ, "DJANGO_SECRET_KEY": "insecure-test-only-key", **env}
    result = subprocess.run(
        [sys.executable, "-c", "import config.settings"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stderr.strip().splitlines()[-1] if result.returncode else ""


def test_pdf_settings_are_checked_when_the_site_starts():
    assert _settings_error(PDF_FETCH_EXTRA_HOSTS="http://127.0.0.1:8765,example.org") == ""
    assert "PDF_FETCH_HOSTS: expected a host or http(s)://host[:port], got 'ftp://x.org'" in (
        _settings_error(PDF_FETCH_HOSTS="ftp://x.org")
    )
    assert "got 'https://x.org/pdfs'" in _settings_error(PDF_FETCH_EXTRA_HOSTS="https://x.org/pdfs")
    assert "PDF_MAX_BYTES and PDF_FETCH_TIMEOUT must be at least 1" in _settings_error(
        PDF_MAX_BYTES="0"
    )
    assert "PDF_STORAGE: 'pdfs' is not a storage in STORAGES" in _settings_error(PDF_STORAGE="pdfs")
