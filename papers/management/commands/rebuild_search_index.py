"""Rebuild the search index from the database."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from papers.management.commands.update_search_index import unwritable_index_message
from papers.search.store import SearchIndex


class Command(BaseCommand):
    help = (
        "Build a new Tantivy search index in SEARCH_INDEX_DIR from the database and switch to "
        "it (running processes keep searching the old one until it is published)."
    )

    def handle(self, *args, **options):
        directory = settings.SEARCH_INDEX_DIR
        self.stdout.write(f"Building the search index in {directory} ...")
        try:
            report = SearchIndex(directory).rebuild(progress=self._progress)
        except OSError as exc:
            raise CommandError(unwritable_index_message(exc)) from exc
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
