"""Decoding JSON from an untrusted file without a traceback, whatever the file holds.

The standard decoder recurses once per nesting level (about 1,000 levels give RecursionError)
and converts integers of any length (more than 4,300 digits give ValueError). Here a value is
first scanned for its nesting depth, linearly and without recursion, and integers are converted
by a hook that refuses long ones; both problems become `JSONRejected`, which a reader turns
into file:line. Syntax errors stay `json.JSONDecodeError`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from papers.text import utf8_size

# Real records are at most 4 deep (an array of objects holding lists of strings).
MAX_DEPTH = 32
# Python's own default limit on converting digits to an int; nothing real comes close.
MAX_INT_DIGITS = 4_300

# A string (up to its closing quote, or to the end of the text when it is never closed) or a
# bracket. Brackets inside strings are thereby skipped.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\Z)|[\[\]{}]', re.DOTALL)
_SPACE = re.compile(r"[ \t\n\r]*")


class JSONRejected(ValueError):
    """Well-formed enough to read, but beyond what the importer accepts.

    `position` is the offset in the text where the problem starts, when known.
    """

    def __init__(self, message: str, position: int | None = None):
        self.message = message
        self.position = position
        super().__init__(message)


def _parse_int(digits: str) -> int:
    count = len(digits.lstrip("-"))
    if count > MAX_INT_DIGITS:
        raise JSONRejected(
            f"a JSON number has {count} digits; at most {MAX_INT_DIGITS} are allowed"
        )
    return int(digits)


_DECODER = json.JSONDecoder(parse_int=_parse_int)


def skip_space(text: str, position: int) -> int:
    """The first position at or after `position` that is not JSON whitespace."""
    match = _SPACE.match(text, position)
    assert match is not None  # the pattern matches the empty string too
    return match.end()


def check_depth(text: str, start: int = 0, depth: int = 0) -> int | None:
    """Raise JSONRejected if the value starting at `start` nests deeper than MAX_DEPTH; return
    where the value ends if it is an array, object or string (None for a number or literal,
    or a value never closed).

    `depth` is how deep `start` already is (1 inside a top-level array). The scan stops where
    that value ends, so scanning every element of an array in turn stays linear: nothing here
    may look past the value (counting the brackets to the end of the text, once per element
    of a 10 MB array of notes, made reading it quadratic).
    """
    base = depth
    for match in _TOKEN.finditer(text, start):
        char = text[match.start()]
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise JSONRejected(f"JSON nested more than {MAX_DEPTH} levels deep", match.start())
        elif char in "]}":
            depth -= 1
            if depth <= base:
                return match.end()
        elif depth == base:
            return match.end() if match.start() == start else None  # the value is a string
    return None


class JSONTooLarge(JSONRejected):
    """A value longer than the caller allows: `size` bytes as UTF-8, or None when it is known
    only to be over (more characters than the limit has bytes; not copied to count them)."""

    def __init__(self, size: int | None, position: int):
        self.size = size
        super().__init__("a JSON value is too long", position)


def raw_decode(
    text: str, start: int, depth: int = 0, max_size: int | None = None
) -> tuple[Any, int]:
    """(value, end) of the JSON value at `start`, after checking its depth and numbers and,
    before decoding it, that an array, object or string takes at most `max_size` bytes."""
    end = check_depth(text, start, depth)
    if max_size is not None and end is not None:
        if end - start > max_size:
            raise JSONTooLarge(None, start)
        if 4 * (end - start) > max_size and (size := utf8_size(text[start:end])) > max_size:
            raise JSONTooLarge(size, start)
    return _DECODER.raw_decode(text, start)


def loads(text: str) -> Any:
    """Like json.loads, raising JSONRejected for deep nesting and very long integers."""
    # The text is this one value, so counting its brackets costs no more than decoding it, and
    # spares the usual JSON line, with a few brackets, the scan.
    if text.count("[") + text.count("{") > MAX_DEPTH:
        check_depth(text, skip_space(text, 0))
    return _DECODER.decode(text)
