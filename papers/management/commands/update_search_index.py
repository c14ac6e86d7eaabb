"""Bring the search index up to date with the database: build it if missing, else catch up."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from papers.models import SearchChange
from papers.search.store import IndexUnavailable, SearchIndex


def unwritable_index_message(exc: OSError) -> str:
    # An operator's mistake (a read-only or mistyped SEARCH_INDEX_DIR), not a bug: say which
    # setting to fix rather than print a traceback from deep in the index store.
    return (
        f"The search index directory {settings.SEARCH_INDEX_DIR} cannot be written "
        f"({exc.strerror or exc}: {exc.filename}). Set SEARCH_INDEX_DIR to a writable "
        "directory on this host's local disk."
    )


class Command(BaseCommand):
    help = (
        "Build the search index in SEARCH_INDEX_DIR if it is missing or unusable, otherwise "
        "apply the changes recorded since it was last updated. `make run` and `make serve` "
        "run it before serving; requests catch up on their own after that."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--prune-days",
            type=int,
            metavar="DAYS",
            help=(
                "Afterwards, delete recorded changes older than DAYS days. An app server "
                "whose index is older than the pruned changes rebuilds it on its next request."
            ),
        )

    def handle(self, *args, prune_days: int | None = None, **options):
        index = SearchIndex(settings.SEARCH_INDEX_DIR)
        try:
            report = index.rebuild(only_if_needed=True)
            if report is not None:
                rate = report.papers / report.seconds if report.seconds else 0
                self.stdout.write(
                    f"Built the search index ({report.generation}): {report.papers} papers in "
                    f"{report.seconds:.1f} s ({rate:,.0f} papers/s)."
                )
            searcher = index.catch_up()
            applied = index.applied_seq
        except IndexUnavailable as exc:
            raise CommandError(str(exc)) from exc
        except OSError as exc:
            raise CommandError(unwritable_index_message(exc)) from exc
        finally:
            index.close()
        self.stdout.write(
            self.style.SUCCESS(
                f"The search index in {settings.SEARCH_INDEX_DIR} is current: "
                f"{searcher.num_docs} papers, change {applied}."
            )
        )
        if prune_days is not None:
            if prune_days < 0:
                raise CommandError("--prune-days: expected 0 or more.")
            cutoff = timezone.now() - timedelta(days=prune_days)
            old = SearchChange.objects.filter(recorded_at__lt=cutoff).order_by("-seq")
            through = old.values_list("seq", flat=True).first()
            deleted = SearchChange.objects.prune(through=through) if through else 0
            self.stdout.write(f"Pruned {deleted} recorded changes older than {prune_days} days.")
