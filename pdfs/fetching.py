"""Downloading one paper's PDF, server side, within the limits of docs/pdfs.md. No database.

A download is refused (PdfRefused, whose message names the URL and says why) unless:
- every URL on the way, the first and each redirect's, is https on a host of PDF_FETCH_HOSTS, or
  exactly matches an entry written with its scheme (http://127.0.0.1:8765, a local stand-in);
  redirects are followed here, one hop at a time, so that each is checked before it is asked
  (papers.sources.redirects, shared with the metadata services' client);
- the file is at most PDF_MAX_BYTES: refused up front from Content-Length, and while reading
  whatever the headers said (a server may send no length, or lie);
- it starts with %PDF- (an HTML page, such as a login wall, answered with "200 OK" is not one);
- the whole download, retries included, takes at most PDF_FETCH_TIMEOUT seconds.

It follows the conventions of papers/sources/client.py: the same User-Agent, FetchError with the
URL in its message, a 429 or 503 waits what Retry-After says (or a backoff) and is tried again.
The body streams into a temporary file (in memory while small), never read whole.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import IO
from urllib.parse import urlsplit

import httpx
from django.conf import settings

from papers.numbers import MAX_ID, bounded_int
from papers.sources.client import BACKOFF, FetchError, retry_after_seconds, user_agent
from papers.sources.redirects import (
    Origin,
    RedirectRefused,
    follow,
    has_credentials,
    origin_of,
)
from pdfs.content import NotAPdf, PdfTooLarge, check_size, hash_chunks

TRIES = 3
# Answers worth asking again: rate limits and a server that is briefly unwell.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# Larger downloads spill from memory to a temporary file on disk.
SPOOL_BYTES = 4 * 1024 * 1024


class Refusal(StrEnum):
    """Why a download was refused: the command's summary counts them by these words."""

    HOST = "host not allowed"
    REDIRECT = "redirect to a host not allowed"
    TOO_LARGE = "over the size limit"
    NOT_PDF = "not a PDF"
    TIMEOUT = "too slow"
    HTTP = "HTTP error"
    CONNECTION = "connection failed"


class PdfRefused(FetchError):
    """A PDF that was not fetched, and why; nothing of it is kept."""

    def __init__(self, url: str, message: str, *, reason: Refusal, status: int | None = None):
        super().__init__(url, message, status=status)
        self.reason = reason


def allowed_origins(entries: Iterable[str]) -> frozenset[Origin]:
    """PDF_FETCH_HOSTS as origins: a bare host means https on port 443."""
    origins = set()
    for entry in entries:
        origin = origin_of(entry if "://" in entry else f"https://{entry}")
        if origin is not None:
            origins.add(origin)
    return frozenset(origins)


def url_problem(url: str) -> str:
    """Why `url` may not be fetched from, or "" when it may."""
    try:
        scheme = urlsplit(url).scheme
    except ValueError:  # an unclosed "[" of an IPv6 host
        return "not a usable URL"
    if scheme not in ("http", "https"):
        return "not an http(s) URL"
    if has_credentials(url):
        return "a URL with credentials in it is never fetched"
    origin = origin_of(url)
    if origin is None:
        return "not a usable URL"
    if origin not in allowed_origins(settings.PDF_FETCH_HOSTS):
        where = origin.host if origin.scheme == "https" and origin.port == 443 else url_origin(url)
        return f"{where} is not in PDF_FETCH_HOSTS"
    return ""


def url_origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


@dataclass
class DownloadedPdf:
    """A fetched PDF, checked, in a temporary file at its start; close() drops it."""

    url: str
    final_url: str
    file: IO[bytes]
    sha256: str
    size: int

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> DownloadedPdf:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _TryAgain(Exception):
    def __init__(self, problem: str, wait: float | None = None):
        super().__init__(problem)
        self.problem = problem
        self.wait = wait


class PdfFetcher:
    """Downloads PDFs; safe to share between threads. Use as a context manager."""

    def __init__(
        self,
        *,
        transport: httpx.BaseTransport | None = None,
        tries: int = TRIES,
        backoff: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.tries = max(1, tries)
        self.backoff = BACKOFF if backoff is None else backoff
        self.sleep = sleep
        self.clock = clock
        self.http = httpx.Client(
            headers={"User-Agent": user_agent(), "Accept": "application/pdf"},
            transport=transport,
            # Followed by hand: each hop is checked against PDF_FETCH_HOSTS before it is asked.
            follow_redirects=False,
        )

    def __enter__(self) -> PdfFetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def fetch(self, url: str) -> DownloadedPdf:
        """The PDF at `url`, checked and in a temporary file; PdfRefused otherwise."""
        limit = settings.PDF_FETCH_TIMEOUT
        deadline = self.clock() + limit
        problem = url_problem(url)
        if problem:
            raise PdfRefused(url, problem, reason=Refusal.HOST)
        for attempt in range(1, self.tries + 1):
            try:
                return self._attempt(url, deadline)
            except _TryAgain as again:
                if attempt == self.tries:
                    raise PdfRefused(
                        url,
                        f"gave up after {self.tries} tries ({again.problem})",
                        reason=Refusal.HTTP,
                    ) from None
                wait = self._backoff(attempt) if again.wait is None else again.wait
                if self.clock() + wait >= deadline:
                    raise PdfRefused(
                        url,
                        f"no PDF within {limit} s ({again.problem}, asked to wait {wait:.0f} s)",
                        reason=Refusal.TIMEOUT,
                    ) from None
                self.sleep(wait)
        raise AssertionError("unreachable")  # the loop returns or raises

    def _attempt(self, url: str, deadline: float) -> DownloadedPdf:
        waits: list[float] = []  # each hop's wait for the server; the last one reads the body

        def send(current: str) -> httpx.Response:
            response, wait = self._send(url, current, deadline)
            waits.append(wait)
            return response

        try:
            response, final_url = follow(url, send, url_problem)
        except RedirectRefused as refused:
            raise PdfRefused(url, str(refused), reason=Refusal.REDIRECT) from None
        try:
            status = f"HTTP {response.status_code} {response.reason_phrase}".strip()
            if response.status_code in RETRY_STATUSES:
                asked = retry_after_seconds(response.headers.get("Retry-After", ""))
                raise _TryAgain(status, asked)
            if not response.is_success:
                raise PdfRefused(
                    url, f"answered {status}", reason=Refusal.HTTP, status=response.status_code
                )
            return self._read(url, final_url, response, deadline, waits[-1])
        finally:
            response.close()

    def _send(self, url: str, current: str, deadline: float) -> tuple[httpx.Response, float]:
        """The answer's headers (its body still to read), and the longest wait for the server
        (each read) allowed: what is left of the download's time, at most FETCH_TIMEOUT."""
        wait = min(self._remaining(url, deadline), float(settings.FETCH_TIMEOUT))
        request = self.http.build_request("GET", current, timeout=httpx.Timeout(wait))
        try:
            return self.http.send(request, stream=True), wait
        except httpx.TimeoutException:
            raise self._silent(url, wait) from None
        except httpx.TransportError as error:
            raise _TryAgain(f"connection failed: {str(error) or type(error).__name__}") from None

    def _read(
        self, url: str, final_url: str, response: httpx.Response, deadline: float, wait: float
    ) -> DownloadedPdf:
        # Not a number, or past any file's size: the read below stops at PDF_MAX_BYTES anyway.
        announced = bounded_int(response.headers.get("Content-Length", ""), low=0, high=MAX_ID)
        file = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
        try:
            if announced is not None:
                check_size(announced)
            sha256, size = hash_chunks(self._chunks(url, response, deadline, wait), file)
        except PdfTooLarge as error:
            file.close()
            raise PdfRefused(url, f"too large: {error}", reason=Refusal.TOO_LARGE) from None
        except NotAPdf as error:
            file.close()
            kind = response.headers.get("Content-Type", "no Content-Type").split(";")[0]
            message = f"not a PDF ({kind}): {error}"
            raise PdfRefused(url, message, reason=Refusal.NOT_PDF) from None
        except BaseException:
            file.close()
            raise
        file.seek(0)
        return DownloadedPdf(url=url, final_url=final_url, file=file, sha256=sha256, size=size)

    def _chunks(
        self, url: str, response: httpx.Response, deadline: float, wait: float
    ) -> Iterable[bytes]:
        try:
            # Without a chunk size: each piece as it arrives, so the clock is read after every
            # read from the socket (a chunk size would gather 64 KB of a trickle first).
            for chunk in response.iter_bytes():
                yield chunk
                # A server that trickles bytes never trips a read timeout: the clock does.
                self._remaining(url, deadline)
        except httpx.TimeoutException:
            raise self._silent(url, wait) from None
        except httpx.TransportError as error:
            raise _TryAgain(f"connection lost: {str(error) or type(error).__name__}") from None

    def _remaining(self, url: str, deadline: float) -> float:
        remaining = deadline - self.clock()
        if remaining <= 0:
            raise self._too_slow(url)
        return remaining

    def _too_slow(self, url: str) -> PdfRefused:
        limit = settings.PDF_FETCH_TIMEOUT
        return PdfRefused(url, f"no complete PDF within {limit} s", reason=Refusal.TIMEOUT)

    def _silent(self, url: str, wait: float) -> PdfRefused:
        return PdfRefused(url, f"no answer within {round(wait, 1):g} s", reason=Refusal.TIMEOUT)

    def _backoff(self, attempt: int) -> float:
        return self.backoff * (2 ** (attempt - 1))
