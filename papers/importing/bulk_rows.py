"""Inserting many rows as plain tuples, without Django preparing every value of every object.

An import of 100,000 papers writes 100,000 papers, tens of thousands of authors, about 570,000
authorships and as many paper tags; letting bulk_create prepare each value of each object was
most of the import's time. PostgreSQL takes the rows through COPY, SQLite through executemany;
both run inside the import's transaction, so a failed or killed import still leaves nothing
behind. Signals are not sent (nor are they by bulk_create): the loader records what the search
index needs.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.db import connection, models
from django.db.models import Q

from papers.models import db_column

# Values per `__in` lookup: below SQLite's 999 bound parameters (Django's own figure for it),
# whatever the batch size or the number of authors and tags a batch brings.
IN_CHUNK = 500


def chunks(values: Iterable, size: int = IN_CHUNK) -> Iterator[list]:
    """`values` in lists of at most `size`, one `__in` lookup each."""
    values = list(values)
    for start in range(0, len(values), size):
        yield values[start : start + size]


def by_kind_in_chunks(
    model, field_name: str, pairs: list[tuple[str, str]], *, kind_field: str = "kind"
) -> Iterator:
    """Querysets of `model` matching (kind, value) pairs, IN_CHUNK pairs each: one OR term per
    kind, each a bounded `__in` (a long OR of pairs is an expression SQLite refuses,
    "Expression tree is too large")."""
    for chunk in chunks(pairs):
        by_kind: dict[str, list[str]] = {}
        for kind, value in chunk:
            by_kind.setdefault(kind, []).append(value)
        condition = Q()
        for kind, values in by_kind.items():
            condition |= Q(**{kind_field: kind, f"{field_name}__in": values})
        yield model.objects.filter(condition)


# SQLite's page cache while an import writes: its indexes (forum id, abstract fingerprint,
# author names, source records) take inserts at random places, and with the default 2 MB every
# one of them reads its pages back from the write-ahead log. The memory counts in the import's
# RSS, bounded by this.
IMPORT_CACHE_KIB = 256 * 1024


@contextmanager
def import_write_cache() -> Iterator[None]:
    """A larger SQLite page cache for the duration of an import (nothing on PostgreSQL, whose
    shared buffers are the server's)."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        (before,) = cursor.fetchone()
        cursor.execute(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size = {int(before)}")


# The import's first statistics are taken once it has loaded this many papers; later ones each
# time the papers it loaded since match those known at the last (the table has doubled).
ANALYZE_FIRST_AT = 20_000


class PlannerStatistics:
    """Keeps PostgreSQL's statistics of the tables an import looks rows up in current while it
    loads (nothing on SQLite, whose planner goes by its indexes).

    The planner knows nothing of the rows an import inserts until someone analyses them, which
    autovacuum cannot do before the import commits. Half a million papers into a first import,
    it still took "source = X" for a few hundred rows and filtered every source record of the
    file for each batch's keys. ANALYZE in the import's own transaction samples its rows too;
    taken each time the table doubles, it costs a few seconds over a million papers.
    """

    def __init__(self, model: type[models.Model], *related: type[models.Model]):
        self.tables = [m._meta.db_table for m in (model, *related)]
        self.enabled = connection.vendor == "postgresql"
        self.known: float | None = None  # rows of `model` at the last statistics
        self.loaded = 0  # rows the import added since

    def added(self, count: int) -> None:
        if not self.enabled:
            return
        self.loaded += count
        if self.loaded < ANALYZE_FIRST_AT:
            return
        quote = connection.ops.quote_name
        with connection.cursor() as cursor:
            if self.known is None:
                cursor.execute(
                    "SELECT GREATEST(reltuples, 0) FROM pg_class WHERE oid = %s::regclass",
                    [quote(self.tables[0])],
                )
                (self.known,) = cursor.fetchone()
            if self.loaded >= self.known:
                cursor.execute(f"ANALYZE {', '.join(quote(t) for t in self.tables)}")
                self.known += self.loaded
                self.loaded = 0


def insert_rows(model: type[models.Model], fields: Sequence[str], rows: list[tuple]) -> None:
    """INSERT `rows`, each a tuple of database values for `fields` (names of model fields)."""
    if not rows:
        return
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(db_column(model, name)) for name in fields)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(fields))
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)  # noqa: S608


def insert_objects(objects: Sequence[models.Model]) -> None:
    """INSERT new model instances (all of one model) with every concrete field, giving each its
    primary key first, as bulk_create does, at a fraction of its cost per value.

    Only for fields whose Python values the database takes as they are (text, numbers,
    booleans, foreign key ids), date-times and JSON; auto_now(_add) fields must be set already.
    """
    if not objects:
        return
    model = type(objects[0])
    for obj, pk in zip(objects, allocate_ids(model, len(objects)), strict=True):
        obj.pk = pk
        obj._state.adding = False
    fields = list(model._meta.concrete_fields)
    values = operator.attrgetter(*(field.attname for field in fields))  # one C call per object
    converted = [(i, convert) for i, field in enumerate(fields) if (convert := _converter(field))]
    rows = []
    for obj in objects:
        row = list(values(obj))
        for i, convert in converted:
            row[i] = convert(row[i])
        rows.append(tuple(row))
    insert_rows(model, [field.name for field in fields], rows)


def allocate_ids(model: type[models.Model], count: int) -> list[int]:
    """`count` primary keys no row has had or will be given by anyone else.

    PostgreSQL hands them out from the table's sequence, safely under concurrent writers.
    SQLite has one writer, and the import's transaction holds the write lock by now (it
    created its ImportRun): the ids follow the largest ever given (sqlite_sequence, as
    AUTOINCREMENT keeps it), so a deleted paper's id is never reused.
    """
    table = model._meta.db_table
    pk_column = db_column(model, "pk")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [table, pk_column, count],
            )
            return [row[0] for row in cursor.fetchall()]
        quote = connection.ops.quote_name
        cursor.execute(
            f"SELECT MAX(COALESCE(MAX({quote(pk_column)}), 0), "  # noqa: S608
            "COALESCE((SELECT seq FROM sqlite_sequence WHERE name = %s), 0)) "
            f"FROM {quote(table)}",
            [table],
        )
        (largest,) = cursor.fetchone()
        start = largest + 1
    return list(range(start, start + count))


def _converter(field: models.Field) -> Callable[[Any], Any] | None:
    """How a value of `field` becomes a database value; None when it needs no change."""
    if isinstance(field, models.JSONField):
        return lambda value: json.dumps(value, ensure_ascii=False)
    if isinstance(field, models.DateTimeField):
        # The objects of one insert share a handful of timestamps: each is adapted once.
        adapted: dict[Any, Any] = {}

        def datetime_value(value):
            if value not in adapted:
                adapted[value] = connection.ops.adapt_datetimefield_value(value)
            return adapted[value]

        return datetime_value
    return None
