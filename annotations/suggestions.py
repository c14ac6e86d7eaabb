""" "Suggest to…": one member suggests a paper to another, who accepts it into a list they may
edit, or dismisses it. Only the two of them ever see a suggestion."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotations import services
from annotations.models import (
    Notification,
    NotificationKind,
    ReadingList,
    Suggestion,
    SuggestionState,
)
from papers.models import Paper


@transaction.atomic
def suggest(*, sender, recipient, paper: Paper, reason: str = "") -> Suggestion:
    """Suggest `paper` to `recipient` (an active member other than `sender`, as SuggestForm
    checks) and notify them; raises services.AlreadyThere while the same suggestion waits."""
    try:
        with transaction.atomic():
            suggestion = Suggestion.objects.create(
                sender=sender, recipient=recipient, paper=paper, reason=reason
            )
    except IntegrityError:
        raise services.AlreadyThere(
            f"You already suggested “{paper.display_title}” to {recipient.get_username()}."
        ) from None
    Notification.objects.create(
        recipient=recipient, kind=NotificationKind.SUGGESTION, suggestion=suggestion
    )
    return suggestion


def suggested_to(user) -> QuerySet[Suggestion]:
    """What waits for `user`, newest first, with who suggested it and the paper."""
    return (
        Suggestion.objects.filter(recipient=user, state=SuggestionState.OPEN)
        .select_related("sender", "paper")
        .defer("paper__abstract")
        .order_by("-created_at", "-pk")
    )


def _answered(suggestion: Suggestion, state: str, into: ReadingList | None) -> bool:
    # A conditional update: of two answers at once (two tabs), one wins and the other is told.
    now = timezone.now()
    changed = Suggestion.objects.filter(pk=suggestion.pk, state=SuggestionState.OPEN).update(
        state=state, accepted_into=into, answered_at=now
    )
    suggestion.state, suggestion.accepted_into, suggestion.answered_at = state, into, now
    return bool(changed)


@transaction.atomic
def accept(*, suggestion: Suggestion, into: ReadingList, by) -> bool:
    """Put the paper in `into` (a list `by` may edit: AcceptSuggestionForm) and close the
    suggestion; False when it was answered already. A paper already in the list is fine."""
    if not _answered(suggestion, SuggestionState.ACCEPTED, into):
        return False
    try:
        services.add_paper_to_list(reading_list=into, paper=suggestion.paper, by=by)
    except services.AlreadyThere:
        pass
    return True


def dismiss(*, suggestion: Suggestion) -> bool:
    return _answered(suggestion, SuggestionState.DISMISSED, None)
