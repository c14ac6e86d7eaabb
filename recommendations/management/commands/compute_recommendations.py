"""Recompute "Recommended for me" for every member (or one); run by cron or a systemd timer."""

from __future__ import annotations

from time import perf_counter

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser
from django.template.defaultfilters import pluralize

from operations.commands import ScheduledCommand
from recommendations import services, training


class Command(ScheduledCommand):
    help = (
        "Recompute every active member's recommendations (a linear model per member on tf-idf "
        "features of all papers), replacing their rows in one transaction per member."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="Only this member (user name).")
        parser.add_argument(
            "--limit",
            type=int,
            default=training.DEFAULT_LIMIT,
            help=f"Recommendations kept per member (default {training.DEFAULT_LIMIT}).",
        )

    def handle(self, *args, user: str | None, limit: int, **options) -> None:
        if limit < 1:
            raise CommandError("--limit must be at least 1.")
        users = None
        if user is not None:
            found = get_user_model().objects.filter(username=user).first()
            if found is None:
                raise CommandError(f"No user named {user!r}.")
            users = [found]
        started = perf_counter()
        corpus = services.build_corpus()
        papers, terms = corpus.matrix.shape
        meaning = "" if corpus.meaning is None else " and their embeddings"
        self.stdout.write(
            f"Features: {papers:,} papers, {terms:,} terms{meaning} in "
            f"{perf_counter() - started:.2f} s"
        )
        members = recommended = 0
        for outcome in services.recompute(users, limit=limit, corpus=corpus):
            members += 1
            recommended += outcome.recommended
            if outcome.recommended:
                detail = f"{outcome.recommended} recommendations"
            else:
                detail = f"none (needs {training.MIN_POSITIVES} saved, noted or tagged papers)"
            self.stdout.write(
                f"{outcome.user}: {outcome.positives} positive{pluralize(outcome.positives)}, "
                f"{detail} "
                f"in {outcome.seconds:.2f} s"
            )
        total = perf_counter() - started
        self.stdout.write(
            f"Total: {members} members, {recommended} recommendations in {total:.2f} s"
        )
