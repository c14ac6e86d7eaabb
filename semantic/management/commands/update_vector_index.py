"""Catch this server's vector index up with the stored embeddings (build it if missing)."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection

from semantic.embedder import get_embedder
from semantic.models import PaperEmbedding
from semantic.search import vector_index
from semantic.services import embed_papers

HOW_TO_TURN_ON = (
    "Search by meaning is off: `make semantic` turns it on (one step, a few minutes; "
    "docs/semantic.md)."
)


class Command(BaseCommand):
    help = (
        "Bring the vector index in SEARCH_INDEX_DIR/vectors up to date before serving, so no "
        "request pays for building it; does nothing when semantic search is off."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--embed",
            action="store_true",
            help="first embed the papers without a current vector (`make run` and `make "
            "semantic`: a development catalogue is small; production embeds by task and timer)",
        )

    def handle(self, *args, **options):
        embedder = get_embedder()
        if embedder is None:
            off = settings.SEMANTIC_SEARCH == "off"
            self.stdout.write(
                "Search by meaning is off (SEMANTIC_SEARCH=off)." if off else HOW_TO_TURN_ON
            )
            return
        if PaperEmbedding._meta.db_table not in connection.introspection.table_names():
            self.stdout.write(
                f"Search by meaning is ready ({embedder.name}): the database is not migrated "
                "yet; `make run` embeds the papers when it starts."
            )
            return
        started = time.perf_counter()
        embedded = embed_papers(embedder).embedded if options["embed"] else 0
        index = vector_index(embedder).current()
        self.stdout.write(
            self.style.SUCCESS(
                f"Search by meaning is on ({embedder.name}): "
                + (f"{embedded} papers embedded, " if options["embed"] else "")
                + f"vector index up to date, {len(index)} papers "
                f"({time.perf_counter() - started:.1f} s)."
            )
        )
