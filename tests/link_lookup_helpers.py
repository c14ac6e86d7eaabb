"""The outside services an add by link asks, as respx replays them (arXiv's Atom feed), and a
count of every table's rows: what the tests of adding by link and of the reader compare."""

from __future__ import annotations

import httpx
from django.db import connection

from tests.arxiv_feed import atom_entry, feed

ARXIV = "https://arxiv.test/api/query"
CROSSREF = "https://crossref.test"
OPENREVIEW = "https://openreview.test"
OPENREVIEW_V1 = "https://openreview-v1.test"
DOI = "10.1145/3292500.3330701"

SCHRODINGER = atom_entry(
    "2402.01234",
    version=2,
    title='Schr\\"odinger bridges for\n      Lévy processes',
    summary="We bridge $\\alpha$-stable noise; Erd\\H{o}s would approve.",
    authors=("Zoë Müller", "Jürgen Schmidhuber"),
)


def use_test_services(settings) -> None:
    """Every service at a test address respx answers, and arXiv without its delay."""
    settings.ARXIV_API_URL = ARXIV
    settings.ARXIV_API_DELAY = 0
    settings.CROSSREF_API_URL = CROSSREF
    settings.OPENREVIEW_API_URL = OPENREVIEW
    settings.OPENREVIEW_API_V1_URL = OPENREVIEW_V1


def arxiv_answer(*entries: str) -> httpx.Response:
    text = feed(list(entries), total=len(entries))
    return httpx.Response(200, text=text, headers={"Content-Type": "application/atom+xml"})


def row_counts() -> dict[str, int]:
    """Every table's row count (the cache's and the task queue's included)."""
    with connection.cursor() as cursor:
        counts = {}
        for table in connection.introspection.table_names(cursor):
            # A table name the database itself listed, quoted.
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")  # noqa: S608
            counts[table] = cursor.fetchone()[0]
    return counts
