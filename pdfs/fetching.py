"""Downloading one paper's PDF, server side, within the limits of docs/pdfs.md. No database.

The transport is the one outbound client's (papers.sources.client): its User-Agent, at least
PDF_HOST_DELAY seconds between two requests to one host (kept across processes), Retry-After,
bounded retries, one deadline for the whole download, the body streamed into a file with a byte
limit, and redirects followed one hop at a time, each checked before it is asked. This module
says what a PDF we keep is, and words each refusal for the command's summary.

A download is refused (PdfRefused, whose message names the URL and says why) unless:
- every URL on the way, the first and each redirect's, is https on a host of PDF_FETCH_HOSTS, or
  exactly matches an entry written with its scheme (http://127.0.0.1:8765, a local stand-in)
  (papers.sources.redirects.allow_list);
- the file is at most PDF_MAX_BYTES: refused up front from Content-Length, and while reading
  whatever the headers said (a server may send no length, or lie);
- it starts with %PDF- (an HTML page, such as a login wall, answered with "200 OK" is not one);
- the whole download, retries and waits included, takes at most PDF_FETCH_TIMEOUT seconds.

A 429 or a 5xx that may pass waits what Retry-After says (or a backoff) and is tried again, at
most TRIES times. A host silent for FETCH_TIMEOUT is not asked again in this download: it would
hold one of the run's few workers as many times as long. The body streams into a temporary file
(in memory while small), never read whole.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import IO

from django.conf import settings

from papers.sources.client import (
    Deadline,
    FetchClient,
    FetchError,
    GaveUp,
    NoAnswer,
    OutOfTime,
    RedirectOff,
    StatusError,
    TooLarge,
    Transport,
    service,
)
from papers.sources.redirects import allow_list
from pdfs.content import NotAPdf, PdfDigest, PdfTooLarge, too_large

TRIES = 3
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


def url_problem(url: str) -> str:
    """Why `url` may not be fetched from, or "" when it may (asked of each redirect too)."""
    return allow_list(settings.PDF_FETCH_HOSTS, "PDF_FETCH_HOSTS")(url)


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


class _PdfFile:
    """Where the client writes a download (a Sink): a temporary file, the bytes hashed and
    checked as they arrive, so that an HTML page stops at its first bytes."""

    def __init__(self) -> None:
        self.file = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
        self.digest = PdfDigest()
        self.content_type = ""

    def start(self, content_type: str) -> None:
        self.file.seek(0)
        self.file.truncate()
        self.digest = PdfDigest()
        self.content_type = content_type

    def write(self, data: bytes, /) -> object:
        self.digest.update(data)
        return self.file.write(data)


class PdfFetcher:
    """Downloads PDFs; safe to share between threads. Use as a context manager."""

    def __init__(
        self,
        *,
        transport: Transport | None = None,
        tries: int = TRIES,
        backoff: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
        # The deadline's clock.
        clock: Callable[[], float] = time.monotonic,
    ):
        self.clock = clock
        self.http = FetchClient(
            service("pdf_hosts"),
            transport=transport,
            tries=tries,
            backoff=backoff,
            # Bounded by the download's deadline instead.
            max_wait=math.inf,
            sleep=sleep,
            # Without jitter: requests to one host are spaced by its turns (PDF_HOST_DELAY).
            jitter=lambda: 0.0,
            redirects=url_problem,
            retry_timeouts=False,
        )

    def __enter__(self) -> PdfFetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def fetch(self, url: str) -> DownloadedPdf:
        """The PDF at `url`, checked and in a temporary file; PdfRefused otherwise."""
        problem = url_problem(url)
        if problem:
            raise PdfRefused(url, problem, reason=Refusal.HOST)
        pdf = _PdfFile()
        try:
            downloaded = self.http.download(
                url,
                pdf,
                max_bytes=settings.PDF_MAX_BYTES,
                deadline=Deadline(settings.PDF_FETCH_TIMEOUT, clock=self.clock),
            )
            sha256, size = pdf.digest.result()
        except (FetchError, NotAPdf) as error:
            pdf.file.close()
            raise _refusal(url, error, pdf.content_type) from None
        except BaseException:
            pdf.file.close()
            raise
        pdf.file.seek(0)
        return DownloadedPdf(
            url=url, final_url=downloaded.final_url, file=pdf.file, sha256=sha256, size=size
        )


def _refusal(url: str, error: FetchError | NotAPdf, content_type: str) -> PdfRefused:
    """The client's failure, or the file's, worded for the summary."""
    limit = settings.PDF_FETCH_TIMEOUT

    def refused(reason: Refusal, message: str, status: int | None = None) -> PdfRefused:
        return PdfRefused(url, message, reason=reason, status=status)

    if isinstance(error, TooLarge):
        return refused(Refusal.TOO_LARGE, f"too large: {too_large(error.announced)}")
    if isinstance(error, PdfTooLarge):
        return refused(Refusal.TOO_LARGE, f"too large: {error}")
    if isinstance(error, NotAPdf):
        kind = (content_type or "no Content-Type").split(";")[0]
        return refused(Refusal.NOT_PDF, f"not a PDF ({kind}): {error}")
    if isinstance(error, RedirectOff):
        return refused(Refusal.REDIRECT, str(error.refused))
    if isinstance(error, NoAnswer):
        return refused(Refusal.TIMEOUT, error.message)
    if isinstance(error, OutOfTime) and error.wait is not None:
        asked = f"{error.problem}, asked to wait {error.wait:.0f} s"
        return refused(Refusal.TIMEOUT, f"no PDF within {limit} s ({asked})")
    if isinstance(error, OutOfTime):
        return refused(Refusal.TIMEOUT, f"no complete PDF within {limit} s")
    if isinstance(error, GaveUp):
        return refused(Refusal.HTTP, f"gave up after {error.tries} tries ({error.problem})")
    if isinstance(error, StatusError):
        return refused(Refusal.HTTP, f"answered {error.problem}", error.status)
    # ServiceBusy: the host's turns are taken further ahead than the time left.
    return refused(Refusal.TIMEOUT, error.message)
