"""One outbound HTTP client (issue 38, point 3): papers/sources/client.py is the only module of
the project's packages that imports httpx, so every request out of the site (metadata services,
PDFs, add by link) has its politeness, retries, deadline and redirect checks. And its streaming
download: the byte limit, a lost connection starting the file again, one deadline for every try
and wait. Answers are replayed by httpx's MockTransport; nothing reaches the network."""

from __future__ import annotations

import io
from collections.abc import Iterator

import httpx
import pytest

from papers.sources.client import (
    Deadline,
    FetchClient,
    FileSink,
    GaveUp,
    OutOfTime,
    Service,
    TooLarge,
)
from tests.test_import_cycles import imported_names, project_modules
from tests.test_pdfs_fetch_rules import FakeClock

CLIENT = "papers.sources.client"
URL = "https://files.example.org/paper.pdf"


def test_only_the_client_module_imports_httpx():
    importers = sorted(
        module
        for module, path in project_modules().items()
        if any(
            name == "httpx" or name.startswith("httpx.")
            for name in imported_names(path, module, type_only=True)
        )
    )

    assert importers == [CLIENT]  # and the client does: the check sees an import


class Body(httpx.SyncByteStream):
    """A body in pieces, counting those read; `then` is raised after the last (a lost
    connection), else it ends."""

    def __init__(self, pieces: list[bytes], then: Exception | None = None):
        self.pieces = pieces
        self.then = then
        self.read = 0

    def __iter__(self) -> Iterator[bytes]:
        for piece in self.pieces:
            self.read += 1
            yield piece
        if self.then is not None:
            raise self.then


def client(answer, fake_time: FakeClock | None = None, **options) -> FetchClient:
    fake_time = fake_time or FakeClock()
    return FetchClient(
        Service("Files", "", accept="application/pdf"),
        transport=httpx.MockTransport(answer),
        sleep=fake_time.sleep,
        jitter=lambda: 0.0,
        redirects=lambda url: "",
        **options,
    )


def test_a_body_over_the_limit_by_its_content_length_is_refused_before_it_is_read():
    body = Body([b"x" * 1000])
    answer = httpx.Response(200, headers={"Content-Length": "1000"}, stream=body)
    out = io.BytesIO()

    with client(lambda request: answer) as http, pytest.raises(TooLarge) as refused:
        http.download(URL, FileSink(out), max_bytes=100)

    assert refused.value.announced == 1000
    assert body.read == 0 and out.getvalue() == b""


def test_a_body_without_a_length_stops_at_the_limit():
    body = Body([b"x" * 60] * 100)  # 6,000 bytes, no Content-Length
    out = io.BytesIO()

    with client(lambda request: httpx.Response(200, stream=body)) as http:
        with pytest.raises(TooLarge) as refused:
            http.download(URL, FileSink(out), max_bytes=100)

    assert refused.value.announced is None
    assert body.read == 2  # the piece that went past the limit, and not one more
    assert out.getvalue() == b"x" * 60  # nothing past the limit is written


def test_a_connection_lost_midway_starts_the_file_again():
    bodies = iter(
        [
            Body([b"%PDF-first half "], then=httpx.ReadError("connection reset")),
            Body([b"%PDF-", b"whole"]),
        ]
    )
    out = io.BytesIO()

    with client(lambda request: httpx.Response(200, stream=next(bodies))) as http:
        downloaded = http.download(URL, FileSink(out), max_bytes=100)

    assert out.getvalue() == b"%PDF-whole"
    assert downloaded.size == len(b"%PDF-whole")
    assert downloaded.final_url == URL


def test_one_deadline_spans_every_try_and_wait():
    """Each 503 asks for 4 s: tries at 0, 4 and 8 s; the next wait would end past the 10 s of
    the deadline, so it is not waited (though tries are left)."""
    fake_time = FakeClock()
    answer = httpx.Response(503, headers={"Retry-After": "4"})

    with client(lambda request: answer, fake_time, tries=10) as http:
        with pytest.raises(OutOfTime) as late:
            http.download(
                URL, FileSink(io.BytesIO()), max_bytes=100, deadline=Deadline(10, clock=fake_time)
            )

    assert fake_time.slept == [4.0, 4.0]
    assert late.value.wait == 4.0
    assert late.value.problem == "HTTP 503 Service Unavailable"
    # Positive control: without a deadline the same client tries all ten times.
    fake_time.slept.clear()
    with client(lambda request: answer, fake_time, tries=10) as http, pytest.raises(GaveUp):
        http.download(URL, FileSink(io.BytesIO()), max_bytes=100)
    assert len(fake_time.slept) == 9
