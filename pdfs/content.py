"""What makes a file a PDF we keep, whether it was fetched or uploaded. No HTTP, no database."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import IO

from django.conf import settings

# Every PDF starts so (ISO 32000 7.5.2). Readers tolerate junk before it; we do not, so an HTML
# error page or a login wall served as "200 OK" is never stored as a paper.
PDF_MAGIC = b"%PDF-"
# How much of a file that is not a PDF its refusal quotes.
SHOWN_BYTES = 24


class NotAPdf(ValueError):
    """Content that is not one PDF we keep: not starting with %PDF-, or too large."""


class PdfTooLarge(NotAPdf):
    """More than PDF_MAX_BYTES."""


def size_text(size: int) -> str:
    """Bytes as a person reads them: 512 bytes, 1.5 MB."""
    if size < 1024 * 1024:
        return f"{size:,} bytes"
    return f"{size / (1024 * 1024):.1f} MB"


def too_large(size: int | None = None) -> PdfTooLarge:
    """The refusal of a file over PDF_MAX_BYTES: known to have `size` bytes, or (None) of which
    more arrived than the limit."""
    limit = size_text(settings.PDF_MAX_BYTES)
    if size is None:
        return PdfTooLarge(f"more than the limit of {limit} arrived")
    return PdfTooLarge(f"it has {size_text(size)}, more than the limit of {limit}")


def check_size(size: int) -> None:
    """PdfTooLarge when a file announced or known to have `size` bytes is over PDF_MAX_BYTES."""
    if size > settings.PDF_MAX_BYTES:
        raise too_large(size)


def check_head(head: bytes) -> None:
    """NotAPdf unless `head`, the first bytes of a file, start a PDF."""
    if not head.startswith(PDF_MAGIC):
        shown = head[:SHOWN_BYTES].decode("ascii", "replace").strip()
        raise NotAPdf(f"it does not start with %PDF- (it starts with {shown!r})")


class PdfDigest:
    """The SHA-256 and size of a PDF whose chunks are given one by one, checked as they come:
    NotAPdf as soon as it is over PDF_MAX_BYTES or does not start like one."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.size = 0
        self.head = b""

    def update(self, chunk: bytes) -> None:
        if len(self.head) < len(PDF_MAGIC):
            self.head += chunk[:SHOWN_BYTES]  # more than the magic, to say what came instead
            if len(self.head) >= len(PDF_MAGIC):
                check_head(self.head)
        self.size += len(chunk)
        if self.size > settings.PDF_MAX_BYTES:
            raise too_large()
        self.digest.update(chunk)

    def result(self) -> tuple[str, int]:
        """The SHA-256 and size, once every chunk is in."""
        check_head(self.head)  # an empty or tiny file
        return self.digest.hexdigest(), self.size


def hash_chunks(chunks: Iterable[bytes], out: IO[bytes] | None = None) -> tuple[str, int]:
    """The SHA-256 and size of a PDF read in chunks, checked as it comes (written to `out`
    too when given): NotAPdf as soon as it is over PDF_MAX_BYTES or does not start like one."""
    digest = PdfDigest()
    for chunk in chunks:
        digest.update(chunk)
        if out is not None:
            out.write(chunk)
    return digest.result()
