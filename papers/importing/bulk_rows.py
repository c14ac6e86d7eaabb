"""Inserting many rows of a link table as plain tuples, without a model instance per row.

An import of 100,000 papers writes about 570,000 authorships and as many paper tags; building
an instance for each and letting bulk_create prepare every value was most of the import's
time. PostgreSQL takes the rows through COPY, SQLite through executemany; both run inside the
import's transaction, so a failed or killed import still leaves nothing behind. Signals are
not sent (nor are they by bulk_create): the loader records what the search index needs.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection, models


def insert_rows(model: type[models.Model], fields: Sequence[str], rows: list[tuple]) -> None:
    """INSERT `rows`, each a tuple of database values for `fields` (names of model fields)."""
    if not rows:
        return
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(_column(model, name)) for name in fields)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(fields))
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)  # noqa: S608


def _column(model: type[models.Model], name: str) -> str:
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field) or not field.column:
        raise ValueError(f"{model.__name__}.{name} is not a column of its table")
    return field.column
