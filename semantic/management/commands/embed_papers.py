"""Embed the papers whose title or abstract has no current vector (or all, with --all)."""

from __future__ import annotations

from django.core.management.base import CommandError

from operations.commands import ScheduledCommand
from papers.importing.report import ProgressBar
from papers.models import Paper
from semantic.embedder import get_embedder
from semantic.services import DEFAULT_BATCH, embed_papers


class Command(ScheduledCommand):
    help = (
        "Embed each paper's title and abstract with the semantic model and store the vectors "
        "(unchanged texts are skipped); every app server's vector index catches up from them. "
        "Runs once at a time across servers."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--all", action="store_true", help="embed every paper again")
        parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="papers per write")
        parser.add_argument(
            "--skip-if-off",
            action="store_true",
            help="without the semantic extra or its model, say so and succeed (the timer's way)",
        )

    def handle(self, *args, **options):
        embedder = get_embedder()
        if embedder is None and options["skip_if_off"]:
            self.stdout.write("Semantic search is off: nothing embedded.")
            return
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
