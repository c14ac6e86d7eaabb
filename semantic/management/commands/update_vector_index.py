"""Catch this server's vector index up with the stored embeddings (build it if missing)."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from semantic.embedder import get_embedder
from semantic.search import vector_index


class Command(BaseCommand):
    help = (
        "Bring the vector index in SEARCH_INDEX_DIR/vectors up to date before serving, so no "
        "request pays for building it; does nothing when semantic search is off."
    )

    def handle(self, *args, **options):
        embedder = get_embedder()
        if embedder is None:
            self.stdout.write("Semantic search is off: no vector index to update.")
            return
        started = time.perf_counter()
        index = vector_index(embedder).current()
        self.stdout.write(
            self.style.SUCCESS(
                f"Vector index up to date: {len(index)} papers "
                f"({time.perf_counter() - started:.1f} s)."
            )
        )
