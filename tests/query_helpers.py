"""Reading captured queries (django.test.utils.CaptureQueriesContext) in tests."""

from __future__ import annotations


def outside_cache(queries) -> list[str]:
    """The captured queries but those on the database cache's table and the savepoints
    around them: what a view reads of the catalogue, without the export slots it takes and
    gives back (annotations.export_limits)."""
    return [
        query["sql"]
        for query in queries
        if "django_cache" not in query["sql"] and "SAVEPOINT" not in query["sql"]
    ]
