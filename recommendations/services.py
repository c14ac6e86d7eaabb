"""Writes: replacing a member's precomputed recommendations."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from time import perf_counter

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from recommendations import training
from recommendations.models import Recommendation
from semantic.selectors import stored_vectors


@dataclass(frozen=True)
class Outcome:
    user: str
    positives: int
    recommended: int
    seconds: float


def replace_recommendations(user, scored: Sequence[training.Scored], computed_at: datetime) -> None:
    """The member's rows become `scored`, in one transaction: the page never sees half a run."""
    with transaction.atomic():
        Recommendation.objects.filter(user=user).delete()
        Recommendation.objects.bulk_create(
            Recommendation(
                user=user,
                paper_id=item.paper_id,
                score=item.score,
                reasons=item.reasons,
                computed_at=computed_at,
            )
            for item in scored
        )


def build_corpus() -> training.Corpus:
    """Every paper's tf-idf row, and its embedding where search by meaning stores them."""
    return training.with_meaning(training.build_corpus(training.corpus_rows()), stored_vectors())


def recompute(
    users: Sequence | None = None,
    *,
    limit: int = training.DEFAULT_LIMIT,
    corpus: training.Corpus | None = None,
) -> Iterator[Outcome]:
    """Recompute every active member's recommendations (or `users`'), one at a time.

    The features (tf-idf, embeddings) are built once for the run (or given, already built).
    Yields each member's outcome as it is done.
    """
    if users is None:
        users = list(get_user_model().objects.filter(is_active=True).order_by("pk"))
    if corpus is None:
        corpus = build_corpus()
    for user in users:
        started = perf_counter()
        signals = training.member_signals(user)
        scored = training.recommend(corpus, signals, limit=limit)
        replace_recommendations(user, scored, timezone.now())
        yield Outcome(
            user=user.get_username(),
            positives=len(signals.positives),
            recommended=len(scored),
            seconds=perf_counter() - started,
        )
