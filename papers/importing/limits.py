"""How much of a file an import may hold at once: one record, or a file parsed whole.

A record (a JSON line, a CSV or table row, an abstract paragraph, an OpenReview note, an Atom
entry, a BibTeX entry, a RIS record) may be at most IMPORT_MAX_RECORD_BYTES, counted as UTF-8.
Files are read a line at a time with no line longer than that (formats.text_lines), and readers
add up a record's lines as they come, so an oversized record is refused with the line it starts
on once it passes the limit: never read whole, let alone parsed. One 200 MB JSON line, mostly a
field nobody reads, used to take 695 MB to fail or import.

Some files can only be parsed whole: a JSON array or OpenReview `{"notes": [...]}` document
(its elements are still bounded each, before they are decoded), BibTeX (bibtexparser takes the
whole text; entries are measured first, line by line) and UTF-16 text. Those are read only up to
IMPORT_MAX_FILE_BYTES; JSON lines are the way to import more.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings

from papers.importing.records import ImportFailed
from papers.text import utf8_size

MB = 1 << 20


def max_record_bytes() -> int:
    return settings.IMPORT_MAX_RECORD_BYTES


def max_file_bytes() -> int:
    return settings.IMPORT_MAX_FILE_BYTES


def amount(size: int) -> str:
    return f"{size // MB} MB" if size % MB == 0 else f"{size:,} bytes"


def record_too_large(source: str, line: int | None, what: str, size: int | None = None):
    """The error for a record over the limit; `size` when it is known, else it is only known to
    be over (it was not read further)."""
    limit = max_record_bytes()
    how = f"is {size:,} bytes" if size is not None else f"is over {amount(limit)}"
    return ImportFailed(
        source,
        line,
        f"{what} {how}; a record may be at most {amount(limit)} (IMPORT_MAX_RECORD_BYTES)",
    )


def check_record(source: str, line: int, text: str, what: str) -> None:
    """Refuse a record already in memory (read from a text given whole) if it is over."""
    limit = max_record_bytes()
    if len(text) > limit or (4 * len(text) > limit and utf8_size(text) > limit):
        raise record_too_large(source, line, what, utf8_size(text))


class RecordSize:
    """A record's size as its lines are read, refused once over the limit; `start` begins the
    next record. Line breaks between a record's lines count, as in the file."""

    def __init__(self, source: str, what: str):
        self.source = source
        self.what = what
        self.limit = max_record_bytes()
        self.line = 1
        self.size = -1

    def start(self, line: int) -> None:
        self.line = line
        self.size = -1

    def add(self, text: str) -> None:
        self.size += utf8_size(text) + 1
        if self.size > self.limit:
            raise record_too_large(self.source, self.line, self.what)


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, text) for each line of a text given whole, as formats.text_lines gives a
    file's: no empty line after the final line break."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return enumerate(lines, start=1)
