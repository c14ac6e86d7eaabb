"""Reader for JSON lines: one object per line (blank lines allowed).

A file whose content is a single JSON array of objects (a plain .json export) is read too; each
record's line is then where its object starts. Field names are those of records.record_from_mapping.
A line, or an element of the array, over IMPORT_MAX_RECORD_BYTES fails before it is decoded
(papers.importing.limits); an array is read whole, so its file is bounded too.

Values are decoded with papers.importing.safe_json: nesting deeper than MAX_DEPTH and integers
longer than MAX_INT_DIGITS fail with the line they are on instead of a traceback. The array is
decoded element by element, so every error knows its line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from papers.importing import limits, safe_json
from papers.importing.json_scanner import JsonScanner
from papers.importing.records import ImportFailed, PaperRecord, record_from_mapping


def read(text: str, source: str) -> Iterator[PaperRecord]:
    if text.lstrip().startswith("["):
        yield from _read_array(text, source)
        return
    yield from read_lines(enumerate(text.split("\n"), start=1), source)


def read_lines(lines: Iterable[tuple[int, str]], source: str) -> Iterator[PaperRecord]:
    """Records from numbered lines of JSON objects, as they come: a large file is read
    line by line (papers.importing.formats.read_records) instead of whole."""
    found = False
    for number, value in decoded_lines(lines, source):
        if not isinstance(value, dict):
            raise ImportFailed(source, number, "each line must be a JSON object {...}")
        found = True
        yield record_from_mapping(value, source=source, line=number)
    if not found:
        raise ImportFailed(source, None, "no JSON records in the file")


def json_lines(text: str, source: str) -> Iterator[tuple[int, Any]]:
    """(line number, decoded value) for each non-blank line of the text."""
    return decoded_lines(enumerate(text.split("\n"), start=1), source)


def decoded_lines(lines: Iterable[tuple[int, str]], source: str) -> Iterator[tuple[int, Any]]:
    """(line number, decoded value) for each non-blank line; a line that is not JSON fails
    with its line and column."""
    for number, line in lines:
        if not line.strip():
            continue
        # Lines read from a file are bounded already (formats.text_lines); a text given whole
        # is not.
        limits.check_record(source, number, line, "this line")
        try:
            value = safe_json.loads(line)
        except json.JSONDecodeError as error:
            message = f"invalid JSON: {error.msg} (column {error.colno})"
            raise ImportFailed(source, number, message) from None
        except safe_json.JSONRejected as error:
            column = f" (column {error.position + 1})" if error.position is not None else ""
            raise ImportFailed(source, number, error.message + column) from None
        yield number, value


def _read_array(text: str, source: str) -> Iterator[PaperRecord]:
    scan = JsonScanner(text, source, limits.max_record_bytes())
    bracket = text.index("[")
    if scan.at(scan.space(bracket + 1)) == "]":
        scan.expect_end(scan.space(bracket + 1) + 1, "']'")
        raise ImportFailed(source, None, "the JSON array is empty")
    elements = scan.elements(bracket, depth=1, what="this array element")
    while True:
        try:
            line, value = next(elements)
        except StopIteration as done:  # its value: the position after the closing ']'
            scan.expect_end(done.value, "']'")
            return
        if not isinstance(value, dict):
            raise ImportFailed(source, line, "each array element must be a JSON object {...}")
        yield record_from_mapping(value, source=source, line=line)
