"""JSON text read a value at a time, each error with its file:line.

A document held whole (a JSON array of records, OpenReview's {"notes": [...]}) is decoded one
element at a time with papers.importing.safe_json, so every error knows its line and an element
over IMPORT_MAX_RECORD_BYTES (papers.importing.limits) fails before it is decoded. Shared by the
JSON array reader (jsonl) and the OpenReview reader.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any, NoReturn

from papers.importing import limits, safe_json
from papers.importing.records import ImportFailed


class LineCounter:
    """Line numbers of text positions, counted on from the last position asked about (from the
    start for an earlier one)."""

    def __init__(self, text: str):
        self.text = text
        self.position = 0
        self.line = 1

    def at(self, position: int) -> int:
        if position < self.position:
            return self.text.count("\n", 0, position) + 1
        self.line += self.text.count("\n", self.position, position)
        self.position = position
        return self.line


class JsonScanner:
    """Steps through JSON text a value at a time, failing with file:line. With `max_size`,
    a value (a note, or any other member of a document) over it fails before it is decoded."""

    def __init__(self, text: str, source: str, max_size: int | None = None):
        self.text = text
        self.source = source
        self.lines = LineCounter(text)
        self.max_size = max_size

    def fail(self, position: int, message: str) -> NoReturn:
        raise ImportFailed(self.source, self.lines.at(position), message)

    def at(self, position: int) -> str:
        """The character at `position`, "" at the end of the text."""
        return self.text[position : position + 1]

    def space(self, position: int) -> int:
        return safe_json.skip_space(self.text, position)

    def decode(self, position: int, depth: int, what: str = "this value") -> tuple[Any, int]:
        """(value, end) of the JSON value at `position`, `depth` levels inside the document;
        `what` names it when it is over the record size limit."""
        if position >= len(self.text):
            self.fail(position, "invalid JSON: the text ends where a value was expected")
        try:
            return safe_json.raw_decode(self.text, position, depth=depth, max_size=self.max_size)
        except json.JSONDecodeError as error:
            message = f"invalid JSON: {error.msg} (column {error.colno})"
            raise ImportFailed(self.source, error.lineno, message) from None
        except safe_json.JSONTooLarge as error:
            line = self.lines.at(position)
            raise limits.record_too_large(self.source, line, what, error.size) from None
        except safe_json.JSONRejected as error:
            self.fail(position if error.position is None else error.position, error.message)

    def member(self, position: int, *, first: bool) -> tuple[str | None, int]:
        """At an object's next member or its end: (key, start of the value), or (None, the
        position after the closing '}'). `first` is true just after the '{'."""
        position = self.space(position)
        if self.at(position) == "}":
            return None, position + 1
        if not first:
            if self.at(position) != ",":
                self.fail(position, "invalid JSON: expected ',' or '}' after an object member")
            position = self.space(position + 1)
        if self.at(position) != '"':
            self.fail(position, "invalid JSON: expected a key in double quotes")
        key, position = self.decode(position, depth=1)
        position = self.space(position)
        if self.at(position) != ":":
            self.fail(position, "invalid JSON: expected ':' after a key")
        return key, self.space(position + 1)

    def elements(
        self, bracket: int, depth: int, what: str = "this value"
    ) -> Generator[tuple[int, Any], None, int]:
        """(line, value) for each element of the array at `bracket`; returns the position after
        its ']'. `depth` is the elements' depth in the document."""
        position = self.space(bracket + 1)
        if self.at(position) == "]":
            return position + 1
        while True:
            line = self.lines.at(position)
            value, position = self.decode(position, depth=depth, what=what)
            yield line, value
            position = self.space(position)
            if self.at(position) == "]":
                return position + 1
            if self.at(position) != ",":
                self.fail(position, "invalid JSON: expected ',' or ']' after an array element")
            position = self.space(position + 1)

    def expect_end(self, position: int, closing: str) -> None:
        position = self.space(position)
        if position < len(self.text):
            self.fail(position, f"invalid JSON: extra data after the closing {closing}")
