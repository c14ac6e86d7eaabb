"""Rebuild the full-text search index from the papers table."""

from __future__ import annotations

import importlib

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

# The migration holds the SQLite schema; reusing it keeps one definition of the triggers.
_schema = importlib.import_module("papers.migrations.0002_search_index")


class Command(BaseCommand):
    help = (
        "Rebuild the full-text search index. SQLite: restore the FTS5 table and its triggers "
        "if missing, then rebuild and optimise it. PostgreSQL: nothing to do (generated column)."
    )

    def handle(self, *args, **options):
        if connection.vendor == "postgresql":
            self.stdout.write(
                "PostgreSQL keeps papers_paper.search_vector as a generated column: "
                "it is always up to date, nothing to rebuild."
            )
            return
        if connection.vendor != "sqlite":
            raise CommandError(f"Full-text search is not supported on {connection.vendor}.")
        with transaction.atomic(), connection.cursor() as cursor:
            # A later migration that rebuilds papers_paper on SQLite drops its triggers.
            for statement in [_schema.SQLITE_TABLE, *_schema.SQLITE_TRIGGERS]:
                cursor.execute(statement)
            cursor.execute("INSERT INTO papers_fts(papers_fts) VALUES ('rebuild')")
            cursor.execute("INSERT INTO papers_fts(papers_fts) VALUES ('optimize')")
            cursor.execute("SELECT count(*) FROM papers_paper")
            (count,) = cursor.fetchone()
        self.stdout.write(self.style.SUCCESS(f"Rebuilt the SQLite search index: {count} papers."))
