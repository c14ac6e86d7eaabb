"""Turning PATH arguments into decoded text and choosing a reader for each file."""

from __future__ import annotations

import csv
import errno
import io
import os
import re
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from papers.importing import (
    abstract_list,
    arxiv,
    bibtex,
    csv_export,
    jsonl,
    openreview,
    ris,
    table_dump,
)
from papers.importing.records import ImportFailed, PaperRecord

READERS: dict[str, Callable[[str, str], Iterator[PaperRecord]]] = {
    "table": table_dump.read,
    "abstracts": abstract_list.read,
    "jsonl": jsonl.read,
    "csv": csv_export.read,
    "openreview": openreview.read,
    "arxiv": arxiv.read,
    "bibtex": bibtex.read,
    "ris": ris.read,
}
DIRECTORY_SUFFIXES = {".txt", ".jsonl", ".ndjson", ".json", ".csv", ".xml", ".atom", ".bib", ".ris"}
_TABLE_SEPARATOR = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$", re.MULTILINE)
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


def read_bytes(path: Path) -> bytes:
    """The content of a regular file, checked on the open file itself.

    Opened non-blocking, so a FIFO put in the file's place after expand_paths looked at it
    cannot block the open; the check then refuses it before anything is read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise ImportFailed(str(path), None, NOT_REGULAR)
        return file.read()


def read_text(path: Path) -> str:
    """The file as text: UTF-8 (a BOM is allowed), no NUL characters, newlines as "\\n"."""
    try:
        data = read_bytes(path)
    except OSError as error:
        raise ImportFailed(str(path), None, f"cannot read file: {error.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ImportFailed(
            str(path),
            line,
            f"not UTF-8: byte 0x{data[error.start]:02x} cannot be decoded; "
            "re-save the file as UTF-8",
        ) from None
    nul = text.find("\x00")
    if nul != -1:
        raise ImportFailed(str(path), text.count("\n", 0, nul) + 1, "NUL character in the file")
    return text.replace("\r\n", "\n").replace("\r", "\n")


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
    first_line = stripped.split("\n", 1)[0]
    try:
        header = next(csv.reader(io.StringIO(first_line)))
    except (csv.Error, StopIteration):
        header = []
    if len(header) >= 2 and "abstract" in {cell.strip().casefold() for cell in header}:
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


def read_records(path: Path, format: str | None = None) -> list[PaperRecord]:
    source = str(path)
    text = read_text(path)
    chosen = format or detect_format(text, source)
    if chosen not in READERS:
        raise ImportFailed(source, None, f"unknown format {chosen!r}")
    return list(READERS[chosen](text, source))
