"""Reader for JSON lines: one object per line (blank lines allowed).

A file whose content is a single JSON array of objects (a plain .json export) is read too; each
record's line is then where its object starts. Field names are those of records.record_from_mapping.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from papers.importing.records import ImportFailed, PaperRecord, record_from_mapping


def read(text: str, source: str) -> Iterator[PaperRecord]:
    if text.lstrip().startswith("["):
        yield from _read_array(text, source)
        return
    found = False
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            message = f"invalid JSON: {error.msg} (column {error.colno})"
            raise ImportFailed(source, number, message) from None
        if not isinstance(value, dict):
            raise ImportFailed(source, number, "each line must be a JSON object {...}")
        found = True
        yield record_from_mapping(value, source=source, line=number)
    if not found:
        raise ImportFailed(source, None, "no JSON records in the file")


def _read_array(text: str, source: str) -> Iterator[PaperRecord]:
    try:
        values = json.loads(text)
    except json.JSONDecodeError as error:
        raise ImportFailed(source, error.lineno, f"invalid JSON: {error.msg}") from None
    # Re-scan for where each element starts, so errors point at the right line.
    decoder = json.JSONDecoder()
    position = text.index("[") + 1
    if not values:
        raise ImportFailed(source, None, "the JSON array is empty")
    for value in values:
        while text[position] in " \t\n,":
            position += 1
        line = text.count("\n", 0, position) + 1
        _, position = decoder.raw_decode(text, position)
        if not isinstance(value, dict):
            raise ImportFailed(source, line, "each array element must be a JSON object {...}")
        yield record_from_mapping(value, source=source, line=line)
