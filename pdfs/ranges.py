"""HTTP byte ranges (RFC 9110, section 14) on a stored PDF: PDF.js asks for the parts it needs,
so the reader shows a long file's first page before the whole file has arrived."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO

# One range only: PDF.js asks for one at a time. A list of ranges is answered with the whole
# file, as the RFC allows (a multipart answer would buy nothing here).
_ONE_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


class RangeNotSatisfiable(Exception):
    """The range starts past the end of the file (answered 416)."""


def requested_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The first and last byte asked for, within the file; None for the whole file (no Range
    header, one that is not understood, or several ranges)."""
    match = _ONE_RANGE.fullmatch((header or "").strip())
    if match is None:
        return None
    first, last = match.groups()
    if not first:  # "bytes=-N": the last N bytes
        if not last:
            return None
        if int(last) == 0:
            raise RangeNotSatisfiable
        return max(0, size - int(last)), size - 1
    start = int(first)
    end = size - 1 if not last else min(int(last), size - 1)
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
