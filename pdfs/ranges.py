"""HTTP byte ranges (RFC 9110, section 14) on a stored PDF: PDF.js asks for the parts it needs,
so the reader shows a long file's first page before the whole file has arrived."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO

from papers.numbers import bounded_int

# ASCII digits only (`\d` would take other scripts' digits, which int() reads too). A number may
# be any length: it is compared by its count of digits before it is converted (_position).
_RANGE_SPEC = re.compile(r"([0-9]*)-([0-9]*)")


class RangeNotSatisfiable(Exception):
    """The range starts past the end of the file (answered 416)."""


def _position(digits: str, size: int) -> int:
    """The number `digits` spells, or `size` for any number past the end of the file: a
    client may send thousands of digits (or of leading zeros), and int() refuses more than
    4,300. For every use below a number past the end means the same as `size` itself."""
    number = bounded_int(digits.lstrip("0") or "0", low=0, high=size)
    return size if number is None else number


def range_to_honour(range_header: str | None, if_range: str | None, etag: str) -> str | None:
    """The Range header to answer, or None: a Range sent with an If-Range that names another
    version of the file (another entity tag, or a date: no Last-Modified is sent) asks for the
    whole file (RFC 9110, 13.1.5), so a client resuming a download never gets a part of a
    replaced file. Entity tags compare strongly: a weak tag never matches."""
    if if_range is not None and if_range.strip() != etag:
        return None
    return range_header


def requested_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The first and last byte asked for, within the file; None for the whole file (no Range
    header, one that is not understood, or several ranges).

    One range only: PDF.js asks for one at a time. A list of ranges is answered with the whole
    file, as the RFC allows (a multipart answer would buy nothing here).
    """
    unit, equals, specs = (header or "").partition("=")
    if not equals or unit.strip().lower() != "bytes" or size == 0:
        return None
    # A list may have spaces around its commas, and empty elements (RFC 9110, 5.6.1).
    ranges = [spec.strip() for spec in specs.split(",") if spec.strip()]
    match = _RANGE_SPEC.fullmatch(ranges[0]) if len(ranges) == 1 else None
    if match is None:
        return None
    first, last = match.groups()
    if not first:  # "bytes=-N": the last N bytes, the whole file if it is shorter than N
        if not last:
            return None
        suffix = _position(last, size)
        if suffix == 0:
            raise RangeNotSatisfiable
        return size - suffix, size - 1
    start = _position(first, size)
    end = size - 1 if not last else min(_position(last, size), size - 1)
    if start >= size:
        raise RangeNotSatisfiable
    if end < start:
        return None  # "bytes=9-3" is not a range at all: ignored
    return start, end


def file_part(file: IO[bytes], start: int, end: int, block_size: int) -> Iterator[bytes]:
    """Bytes start..end (inclusive) of an open file, in blocks; closes the file when done or
    when the response is closed early."""
    try:
        file.seek(start)
        remaining = end - start + 1
        while remaining > 0:
            block = file.read(min(block_size, remaining))
            if not block:
                break
            remaining -= len(block)
            yield block
    finally:
        file.close()
