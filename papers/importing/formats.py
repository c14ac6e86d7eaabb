"""Turning PATH arguments into decoded text and choosing a reader for each file."""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from papers.importing import (
    abstract_list,
    arxiv,
    bibtex,
    csv_reader,
    jsonl,
    openreview,
    ris,
    safe_json,
    table_dump,
)
from papers.importing.records import ImportFailed, Record

READERS: dict[str, Callable[[str, str], Iterator[Record]]] = {
    "table": table_dump.read,
    "abstracts": abstract_list.read,
    "jsonl": jsonl.read,
    "csv": csv_reader.read,
    "openreview": openreview.read_notes,  # papers and their reviews
    "arxiv": arxiv.read,
    "bibtex": bibtex.read,
    "ris": ris.read,
}
DIRECTORY_SUFFIXES = {
    ".txt",
    ".jsonl",
    ".ndjson",
    ".json",
    ".csv",
    ".tsv",
    ".xml",
    ".atom",
    ".bib",
    ".ris",
}
_TABLE_SEPARATOR = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$", re.MULTILINE)
# Enough of a file's start to tell JSON lines from the other JSON shapes.
HEAD_BYTES = 1 << 16
NOT_REGULAR = "not a regular file (a device, FIFO or socket); only regular files are read"


def is_regular_file(path: Path) -> bool:
    """A regular file, following symlinks: never a device, FIFO or socket, which could be
    endless (/dev/zero), block forever (a FIFO with no writer) or change between reads."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def expand_paths(paths: list[str]) -> list[Path]:
    """Files named directly, plus a directory's importable regular files in sorted order."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        try:
            mode = path.stat().st_mode
        except OSError as error:
            if error.errno in (errno.ENOENT, errno.ENOTDIR):
                raise ImportFailed(raw, None, "no such file or directory") from None
            raise ImportFailed(raw, None, f"cannot read: {error.strerror}") from None
        if stat.S_ISDIR(mode):
            try:
                entries = sorted(path.iterdir())
            except OSError as error:
                raise ImportFailed(raw, None, f"cannot read directory: {error.strerror}") from None
            found = [
                p for p in entries if p.suffix.lower() in DIRECTORY_SUFFIXES and is_regular_file(p)
            ]
            if not found:
                suffixes = ", ".join(sorted(DIRECTORY_SUFFIXES))
                raise ImportFailed(raw, None, f"directory holds no importable files ({suffixes})")
            files.extend(found)
        elif stat.S_ISREG(mode):
            files.append(path)
        else:
            raise ImportFailed(raw, None, NOT_REGULAR)
    return files


@contextmanager
def _open_regular(path: Path) -> Iterator[BinaryIO]:
    """The file opened for reading, checked on the open file itself.

    Opened non-blocking, so a FIFO put in the file's place after expand_paths looked at it
    cannot block the open; the check then refuses it before anything is read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise ImportFailed(str(path), None, f"cannot read file: {error.strerror}") from None
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise ImportFailed(str(path), None, NOT_REGULAR)
        yield file


def read_bytes(path: Path) -> bytes:
    with _open_regular(path) as file:
        return file.read()


def read_text(path: Path) -> str:
    """The file as text: UTF-8 (a BOM is allowed) or UTF-16 with its BOM, no NUL characters,
    newlines as "\\n"."""
    try:
        data = read_bytes(path)
    except OSError as error:
        raise ImportFailed(str(path), None, f"cannot read file: {error.strerror}") from None
    # A file that starts with a UTF-16 byte order mark is UTF-16: Windows tools save "Unicode"
    # text so (Excel, EndNote), and the mark leaves no doubt about the encoding.
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = _decode_utf16(data, str(path))
    else:
        text = _decode(data, str(path), first_line=1)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _decode(data: bytes, source: str, *, first_line: int) -> str:
    """UTF-8 text without NUL characters; an error names the line it is on."""
    try:
        text = data.decode("utf-8-sig" if first_line == 1 else "utf-8")
    except UnicodeDecodeError as error:
        line = first_line + data.count(b"\n", 0, error.start)
        raise ImportFailed(
            source,
            line,
            f"not UTF-8: byte 0x{data[error.start]:02x} cannot be decoded; "
            "re-save the file as UTF-8",
        ) from None
    nul = text.find("\x00")
    if nul != -1:
        raise ImportFailed(
            source, first_line + text.count("\n", 0, nul), "NUL character in the file"
        )
    return text


def _decode_utf16(data: bytes, source: str) -> str:
    try:
        text = data.decode("utf-16")  # the mark gives the byte order and is dropped
    except UnicodeDecodeError as error:
        line = 1 + data[: error.start].decode("utf-16", errors="replace").count("\n")
        raise ImportFailed(
            source, line, f"not UTF-16, though the file starts with its mark: {error.reason}"
        ) from None
    nul = text.find("\x00")
    if nul != -1:
        raise ImportFailed(source, 1 + text.count("\n", 0, nul), "NUL character in the file")
    return text


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) for each line of the file, read as it goes: the same checks and
    line numbers as read_text, without holding the whole file."""
    source = str(path)
    number = 1
    try:
        with _open_regular(path) as file:
            for chunk in file:
                # A lone "\r" ends a line too, as in read_text.
                for piece in chunk.splitlines() or [b""]:
                    yield number, _decode(piece, source, first_line=number)
                    number += 1
    except OSError as error:
        raise ImportFailed(source, None, f"cannot read file: {error.strerror}") from None


def count_lines(path: Path) -> int:
    """How many lines the file has, counted without decoding it (for the progress bar)."""
    with _open_regular(path) as file:
        return sum(block.count(b"\n") for block in iter(lambda: file.read(1 << 20), b"")) + 1


def detect_format(text: str, source: str) -> str:
    """Guess the format from the content: OpenReview notes or our JSON, an arXiv Atom feed,
    BibTeX, RIS, a table dump, CSV with a header, an abstract list."""
    stripped = text.lstrip()
    if not stripped:
        raise ImportFailed(source, None, "file is empty")
    if stripped[0] in "{[":
        return "openreview" if openreview.looks_like(text) else "jsonl"
    if arxiv.looks_like(text):
        return "arxiv"
    if bibtex.looks_like(text):
        return "bibtex"
    if ris.looks_like(text):
        return "ris"
    if _TABLE_SEPARATOR.search(text):
        return "table"
    if csv_reader.delimiter(stripped.split("\n", 1)[0]):
        return "csv"
    if abstract_list.looks_like(text):
        return "abstracts"
    raise ImportFailed(
        source,
        1,
        "cannot tell the format (not JSON lines, OpenReview notes, an arXiv Atom feed, BibTeX, "
        "RIS, a table dump, CSV with an 'abstract' column or a heading followed by abstract "
        "paragraphs); pass --format",
    )


def read_records(path: Path, format: str | None = None) -> Iterator[Record]:
    """The file's records as they are read. JSON lines, the format of large exports, are read
    line by line; every other format is read whole first."""
    source = str(path)
    if _is_json_lines(path, format):
        return jsonl.read_lines(text_lines(path), source)
    text = read_text(path)
    chosen = format or detect_format(text, source)
    if chosen not in READERS:
        raise ImportFailed(source, None, f"unknown format {chosen!r}")
    return READERS[chosen](text, source)


def _is_json_lines(path: Path, format: str | None) -> bool:
    """Whether the file holds JSON objects one per line (not an array, not OpenReview notes),
    told from its first bytes: a wrong guess "no" only means reading the file whole."""
    if format not in (None, "jsonl"):
        return False
    with _open_regular(path) as file:
        head = file.read(HEAD_BYTES).decode("utf-8-sig", errors="ignore").lstrip()
    # Only a first line that is one whole JSON object within the head says "JSON lines". A
    # notes document cut off in the head does not look like OpenReview's: pretty-printed it
    # opens with a bare "{", and a first note longer than the head (a forum saved with its
    # replies) cannot be decoded from it. Both are read whole and detected from all of it.
    first_line, newline, _ = head.partition("\n")
    if not (newline and _is_json_object(first_line)):
        return False
    return format == "jsonl" or not openreview.looks_like(head)


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(safe_json.loads(text), dict)
    except ValueError:  # invalid JSON, or JSON the importer refuses (safe_json.JSONRejected)
        return False
