"""Turning PATH arguments into decoded text and choosing a reader for each file."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from papers.importing import abstract_list, csv_export, jsonl, table_dump
from papers.importing.records import ImportFailed, PaperRecord

READERS: dict[str, Callable[[str, str], Iterator[PaperRecord]]] = {
    "table": table_dump.read,
    "abstracts": abstract_list.read,
    "jsonl": jsonl.read,
    "csv": csv_export.read,
}
DIRECTORY_SUFFIXES = {".txt", ".jsonl", ".ndjson", ".json", ".csv"}
_TABLE_SEPARATOR = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$", re.MULTILINE)


def expand_paths(paths: list[str]) -> list[Path]:
    """Files named directly, plus a directory's importable files in sorted order."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            try:
                entries = sorted(path.iterdir())
            except OSError as error:
                raise ImportFailed(raw, None, f"cannot read directory: {error.strerror}") from None
            found = [p for p in entries if p.is_file() and p.suffix.lower() in DIRECTORY_SUFFIXES]
            if not found:
                suffixes = ", ".join(sorted(DIRECTORY_SUFFIXES))
                raise ImportFailed(raw, None, f"directory holds no importable files ({suffixes})")
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            raise ImportFailed(raw, None, "no such file or directory")
    return files


def read_text(path: Path) -> str:
    """The file as text: UTF-8 (a BOM is allowed), no NUL characters, newlines as "\\n"."""
    try:
        data = path.read_bytes()
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
    """Guess the format from the content: JSON, table dump, CSV with a header, abstract list."""
    stripped = text.lstrip()
    if not stripped:
        raise ImportFailed(source, None, "file is empty")
    if stripped[0] in "{[":
        return "jsonl"
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
        "cannot tell the format (not JSON lines, a table dump, CSV with an 'abstract' column "
        "or a heading followed by abstract paragraphs); pass --format",
    )


def read_records(path: Path, format: str | None = None) -> list[PaperRecord]:
    source = str(path)
    text = read_text(path)
    chosen = format or detect_format(text, source)
    if chosen not in READERS:
        raise ImportFailed(source, None, f"unknown format {chosen!r}")
    return list(READERS[chosen](text, source))
