"""Embed the papers whose title or abstract has no current vector (or all, with --all)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from papers.importing.report import ProgressBar
from papers.models import Paper
from semantic.embedder import get_embedder
from semantic.services import DEFAULT_BATCH, embed_papers


class Command(BaseCommand):
    help = (
        "Embed each paper's title and abstract with the semantic model and store the vectors "
        "(unchanged texts are skipped); every app server's vector index catches up from them."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--all", action="store_true", help="embed every paper again")
        parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="papers per write")

    def handle(self, *args, **options):
        embedder = get_embedder()
        if embedder is None:
            raise CommandError(
                "Semantic search is off: install the extra and export the model "
                "(`make semantic`, docs/semantic.md), and leave SEMANTIC_SEARCH at auto."
            )
        total = Paper.objects.count()
        bar = ProgressBar(self.stderr, desc="Embedding", unit=" papers")
        done = 0

        def progress(count: int) -> None:
            nonlocal done
            done += count
            bar(done, total)

        try:
            report = embed_papers(
                embedder, force=options["all"], batch=options["batch"], progress=progress
            )
        finally:
            bar.close()
        self.stdout.write(
            self.style.SUCCESS(
                f"Embedded {report.embedded} papers ({report.unchanged} unchanged) in "
                f"{report.seconds:.1f} s ({report.rate:.1f} papers/s)."
            )
        )
