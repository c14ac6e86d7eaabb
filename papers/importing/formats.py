"""Turning PATH arguments into decoded text and choosing a reader for each file."""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from papers.importing import (
    abstract_list,
    arxiv,
    bibtex,
    csv_reader,
    jsonl,
    limits,
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
# The readers that take numbered lines, for the formats read a line at a time.
LINE_READERS: dict[str, Callable[[Iterable[tuple[int, str]], str], Iterator[Record]]] = {
    "table": table_dump.read_lines,
    "abstracts": abstract_list.read_lines,
    "jsonl": jsonl.read_lines,
    "csv": csv_reader.read_lines,
    "ris": ris.read_lines,
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
# Enough of a file's start to tell its format: as much as openreview.looks_like examines.
HEAD_BYTES = 1 << 20
# Bytes read at a time where a whole line is not wanted.
_BLOCK = 1 << 20
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


def read_text(path: Path) -> str:
    """The file as text: UTF-8 (a BOM is allowed) or UTF-16 with its BOM, no NUL characters,
    newlines as "\\n". Only for what must be parsed whole: at most IMPORT_MAX_FILE_BYTES."""
    source = str(path)
    limit = limits.max_file_bytes()
    try:
        with _open_regular(path) as file:
            size = os.fstat(file.fileno()).st_size
            # Read one byte past the limit too: the file may have grown since fstat.
            data = b"" if size > limit else file.read(limit + 1)
    except OSError as error:
        raise ImportFailed(source, None, f"cannot read file: {error.strerror}") from None
    if max(size, len(data)) > limit:
        raise ImportFailed(
            source,
            None,
            f"the file is {max(size, len(data)):,} bytes; a file parsed whole (a JSON array or "
            "document, BibTeX, UTF-16 text) may be at most "
            f"{limits.amount(limit)} (IMPORT_MAX_FILE_BYTES); JSON lines have no such limit",
        )
    return _text(data, source)


def _text(data: bytes, source: str) -> str:
    # A file that starts with a UTF-16 byte order mark is UTF-16: Windows tools save "Unicode"
    # text so (Excel, EndNote), and the mark leaves no doubt about the encoding.
    if _is_utf16(data):
        text = _decode_utf16(data, source)
    else:
        text = _decode(data, source, first_line=1)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _is_utf16(data: bytes) -> bool:
    return data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))


def _decode(data: bytes, source: str, *, first_line: int, at_start: bool | None = None) -> str:
    """UTF-8 text without NUL characters; an error names the line it is on. A BOM is dropped
    `at_start` of the file (by default: on its first line)."""
    bom = first_line == 1 if at_start is None else at_start
    try:
        text = data.decode("utf-8-sig" if bom else "utf-8")
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
    line numbers as read_text, without holding the whole file. A line over
    IMPORT_MAX_RECORD_BYTES is refused once that much of it is read."""
    source = str(path)
    limit = limits.max_record_bytes()
    number = 1
    try:
        with _open_regular(path) as file:
            for chunk in _bounded_lines(file, limit):
                if isinstance(chunk, int):
                    size = chunk + _rest_of_line(file)
                    raise limits.record_too_large(source, number, "this line", size)
                # A lone "\r" ends a line too, as in read_text.
                for piece in chunk.splitlines() or [b""]:
                    if len(piece) > limit:
                        raise limits.record_too_large(source, number, "this line", len(piece))
                    yield number, _decode(piece, source, first_line=number)
                    number += 1
    except OSError as error:
        raise ImportFailed(source, None, f"cannot read file: {error.strerror}") from None


def _bounded_lines(file: BinaryIO, limit: int) -> Iterator[bytes | int]:
    """The file's lines with their line breaks, each read a block at a time; for a line found
    longer than `limit`, how many of its bytes were read, and no more lines.

    The blocks of a line are kept apart until it ends: joined as they came, a line over the
    limit would be held twice."""
    while block := file.readline(_BLOCK):
        if block.endswith(b"\n"):
            yield block
            continue
        blocks = [block]
        size = len(block)
        # Two bytes past the limit: a line of exactly the limit still fits with its "\r\n".
        while size <= limit + 1 and (block := file.readline(min(_BLOCK, limit + 2 - size))):
            blocks.append(block)
            size += len(block)
            if block.endswith(b"\n"):
                break
        if size > limit + 1 and not blocks[-1].endswith(b"\n"):
            del blocks
            yield size
            return
        yield b"".join(blocks)


def _rest_of_line(file: BinaryIO) -> int:
    """Bytes up to the next line break, read a block at a time and not kept: enough to say how
    long a refused line is."""
    size = 0
    while block := file.readline(_BLOCK):
        if block.endswith(b"\n"):
            return size + len(block.rstrip(b"\r\n"))
        size += len(block)
    return size


def text_pieces(path: Path) -> Iterator[str]:
    """The file's UTF-8 text a block at a time, with read_text's checks (without its newline
    translation): for a parser that takes text in pieces and bounds what it holds itself."""
    source = str(path)
    line = 1
    held = b""
    try:
        with _open_regular(path) as file:
            while block := file.read(_BLOCK):
                data = held + block
                cut = len(data) - _incomplete_tail(data)
                data, held = data[:cut], data[cut:]
                text = _decode(data, source, first_line=line, at_start=line == 1 and not held)
                line += text.count("\n")
                yield text
    except OSError as error:
        raise ImportFailed(source, None, f"cannot read file: {error.strerror}") from None
    if held:  # a character cut off by the end of the file
        _decode(held, source, first_line=line, at_start=False)


def _incomplete_tail(data: bytes) -> int:
    """How many bytes at the end of `data` begin a UTF-8 character they do not finish."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue  # a continuation byte: the character starts further back
        if byte < 0xC0:
            return 0
        needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
        return back if back < needed else 0
    return 0


def _head(path: Path) -> tuple[str, bool]:
    """(text, is it the whole file): the start of the file, enough to tell its format, as text
    with read_text's checks. A UTF-16 file is read whole (bounded by IMPORT_MAX_FILE_BYTES):
    its lines are not found byte by byte."""
    source = str(path)
    try:
        with _open_regular(path) as file:
            data = file.read(HEAD_BYTES)
            complete = not file.read(1)
    except OSError as error:
        raise ImportFailed(source, None, f"cannot read file: {error.strerror}") from None
    if _is_utf16(data):
        return read_text(path), True
    if not complete:
        data = data[: len(data) - _incomplete_tail(data)]
    return _text(data, source), complete


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
    """The file's records as they are read: a line at a time, or an Atom feed a block at a time,
    so that no record over IMPORT_MAX_RECORD_BYTES is ever held whole (see limits). What can
    only be parsed whole, a JSON array or notes document, BibTeX and UTF-16 text, is read whole
    under IMPORT_MAX_FILE_BYTES, BibTeX after its entries are measured line by line."""
    source = str(path)
    head, complete = _head(path)
    chosen = format or detect_format(head, source)
    if chosen not in READERS:
        raise ImportFailed(source, None, f"unknown format {chosen!r}")
    if complete:
        return READERS[chosen](head, source)
    if chosen in LINE_READERS and not (chosen == "jsonl" and head.lstrip().startswith("[")):
        return LINE_READERS[chosen](text_lines(path), source)
    if chosen == "openreview" and _is_note_line(head):
        return openreview.read_note_lines(text_lines(path), source)
    if chosen == "arxiv":
        return arxiv.read_pieces(text_pieces(path), source)
    if chosen == "bibtex":
        bibtex.measure_entries(text_lines(path), source)
    return READERS[chosen](read_text(path), source)


def _is_note_line(head: str) -> bool:
    """Whether the file is OpenReview notes as JSON lines, told from its first line: a whole
    JSON object within the head that is not a {"notes": [...]} document. A first line longer
    than the head (a response saved on one line) is read whole."""
    first_line, newline, _ = head.lstrip().partition("\n")
    if not newline:
        return False
    try:
        value = safe_json.loads(first_line)
    except ValueError:  # invalid JSON, or JSON the importer refuses (safe_json.JSONRejected)
        return False
    return isinstance(value, dict) and "notes" not in value
