"""Rebuild the search index from the database: the Tantivy index, and the SQL full-text index."""

from __future__ import annotations

import importlib

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from papers.search.store import SearchIndex

# The migration holds the SQLite schema; reusing it keeps one definition of the triggers.
_schema = importlib.import_module("papers.migrations.0002_search_index")


class Command(BaseCommand):
    help = (
        "Build a new Tantivy search index in SEARCH_INDEX_DIR from the database and switch to "
        "it (running processes keep searching the old one until it is published). Also the "
        "SQL full-text index: SQLite restores the FTS5 table and its triggers if missing, "
        "then rebuilds and optimises it; PostgreSQL has nothing to do (generated column)."
    )

    def handle(self, *args, **options):
        self._rebuild_sql_index()
        directory = settings.SEARCH_INDEX_DIR
        self.stdout.write(f"Building the search index in {directory} ...")
        report = SearchIndex(directory).rebuild(progress=self._progress)
        rate = report.papers / report.seconds if report.seconds else 0
        self.stdout.write(
            self.style.SUCCESS(
                f"Rebuilt the search index ({report.generation}): {report.papers} papers in "
                f"{report.seconds:.1f} s ({rate:,.0f} papers/s)."
            )
        )

    def _progress(self, count: int) -> None:
        if count % 100_000 == 0:
            self.stderr.write(f"  {count:,} papers indexed")

    def _rebuild_sql_index(self) -> None:
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
