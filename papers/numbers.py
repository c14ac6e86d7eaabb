"""Whole numbers read from requests, held to what Python and the database can take.

A request can carry any digits. Python's int() refuses a string of more than 4,300 of them
(a ValueError where a caller that checked "digits only" expects none), and a number past a
column's range fails the query that uses it (SQLite raises OverflowError for a parameter past
64 bits; `pk__in` is not guarded by Django). Every integer taken from a request goes through
here: a value these refuse names no row, and the caller says so (a form error, a 400, a
filter ignored with a message).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.urls.converters import IntConverter

from papers.text import is_number

# Largest id a bigint column holds; larger numbers are not ids.
MAX_ID = 2**63 - 1


def bounded_int(raw: Any, *, low: int, high: int) -> int | None:
    """`raw` (a str, or None) as a whole number from `low` to `high`, or None. ASCII digits only:
    no sign, no spaces, no other script's digits. More digits than `high` has are refused
    before int() reads them."""
    if not isinstance(raw, str) or not is_number(raw) or len(raw) > len(str(high)):
        return None
    number = int(raw)
    return number if low <= number <= high else None


def parse_id(raw: Any) -> int | None:
    """The row id `raw` names, or None when it can name none (not a number, 0, past bigint)."""
    return bounded_int(raw, low=1, high=MAX_ID)


def fits_field(field: models.Field, value: Any) -> bool:
    """Whether `value` is one `field` can hold (for an integer key, one the database's integers
    hold): a lookup by it finds a row or none, never a server error. Any key type, any value."""
    if isinstance(value, str) and len(value) > 1_000:  # no key is written this long
        return False
    try:
        field.run_validators(field.to_python(value))
    except ValidationError:
        return False
    return True


class IdConverter(IntConverter):
    """A URL's id (`<id:pk>`): an integer a bigint holds, else the URL matches nothing (404),
    as a query for it could not even be asked of SQLite."""

    def to_python(self, value: str) -> int:
        number = bounded_int(value, low=0, high=MAX_ID)
        if number is None:
            raise ValueError(value)
        return number
