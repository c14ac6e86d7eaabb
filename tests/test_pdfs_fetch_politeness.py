"""PDF downloads through the one outbound client, against the tests' own local server: one total
deadline across every try and wait, Retry-After honoured, and the delay between two requests to
one host (PDF_HOST_DELAY) kept by two clients that share the cache, as two processes or servers
of the site do. These wait for real: each takes a second or a few."""

from __future__ import annotations

import time

import pytest

from pdfs.fetching import PdfFetcher, PdfRefused, Refusal
from tests.pdf_server import GOOD_PDF, LIMIT, PdfServer


@pytest.fixture
def server(settings):
    settings.PDF_MAX_BYTES = LIMIT
    with PdfServer() as server:
        settings.PDF_FETCH_HOSTS = [server.base]
        yield server


def gaps(server: PdfServer) -> list[float]:
    """Seconds between one request to the server and the next."""
    times = [at for _, at in server.asked]
    return [later - earlier for earlier, later in zip(times, times[1:], strict=False)]


def test_one_deadline_spans_a_503s_wait_and_the_trickle_after_it(server, settings):
    """The server asks for a second's wait, then trickles for ever: the download ends at its
    deadline, the wait counted in it, not a full deadline after the retry."""
    settings.PDF_FETCH_TIMEOUT = 3
    url = server.url("/busy-then-slow.pdf")
    started = time.monotonic()

    with PdfFetcher() as pdfs, pytest.raises(PdfRefused) as refused:
        pdfs.fetch(url)
    elapsed = time.monotonic() - started

    assert refused.value.reason == Refusal.TIMEOUT
    assert str(refused.value) == f"{url}: no complete PDF within 3 s"
    assert server.hits["/busy-then-slow.pdf"] == 2  # the retry was made, after the wait
    assert gaps(server)[0] >= 1.0
    assert 2.9 < elapsed < 3.0 + 2  # the deadline, with room for a loaded machine


def test_a_429s_retry_after_is_waited_then_the_pdf_is_fetched(server):
    with PdfFetcher() as pdfs, pdfs.fetch(server.url("/rate-limited-once.pdf")) as pdf:
        assert pdf.file.read() == GOOD_PDF

    assert server.hits["/rate-limited-once.pdf"] == 2
    assert gaps(server)[0] >= 1.0  # Retry-After: 1


# The turns are taken in the shared cache (the database's, as on a site of several servers).
@pytest.mark.django_db
@pytest.mark.parametrize(("delay", "apart"), [(2, True), (0, False)])
def test_two_clients_keep_the_hosts_delay_between_their_downloads(server, settings, delay, apart):
    """Two fetchers (two workers, two servers) download from one host: the second waits for
    the host's turn although it has asked nothing before. Positive control: without a delay it
    asks at once."""
    settings.PDF_HOST_DELAY = delay
    with PdfFetcher() as first, PdfFetcher() as second:
        first.fetch(server.url("/good.pdf")).close()
        second.fetch(server.url("/other.pdf")).close()

    assert [path for path, _ in server.asked] == ["/good.pdf", "/other.pdf"]
    # At least the delay apart, or well within it (room for a loaded machine).
    assert gaps(server)[0] >= 2.0 if apart else gaps(server)[0] < 1.0
