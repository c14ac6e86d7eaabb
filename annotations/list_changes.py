"""A shared list's edits: each is recorded once (the lab's activity) and told to the list's
followers (their notifications). Called by annotations.services inside the edit's transaction,
so a rolled-back edit leaves neither a change nor a notification behind."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from annotations.models import (
    ListChange,
    ListChangeKind,
    ListEditor,
    Notification,
    NotificationKind,
    ReadingList,
    Visibility,
)
from papers.models import Paper


def followers(reading_list: ReadingList) -> set[int]:
    """Who follows a list: its owner, its named editors while it has named editors, and every
    member who added a paper to it (a lab-editable list's contributors). Only members who may
    still read it."""
    ids = {reading_list.owner_id}
    if reading_list.visibility == Visibility.EDITORS:
        ids |= set(
            ListEditor.objects.filter(reading_list=reading_list).values_list("user_id", flat=True)
        )
    elif reading_list.is_shared:
        ids |= set(
            reading_list.items.filter(added_by__isnull=False).values_list("added_by_id", flat=True)
        )
    active = get_user_model().objects.filter(pk__in=ids, is_active=True)
    return set(active.values_list("pk", flat=True))


def record_change(*, reading_list: ReadingList, actor, kind: str, paper: Paper) -> None:
    """Record that `actor` changed `reading_list` and notify its other followers (not of a
    move: a reordering session would be a dozen notices). A private list is its owner's
    alone: nothing to record, nobody to tell."""
    if reading_list.visibility == Visibility.PRIVATE:
        return
    change = ListChange.objects.create(
        reading_list=reading_list, actor=actor, kind=kind, paper=paper
    )
    if kind == ListChangeKind.MOVED:
        return
    Notification.objects.bulk_create(
        Notification(recipient_id=pk, kind=NotificationKind.LIST_CHANGE, list_change=change)
        for pk in sorted(followers(reading_list) - {actor.pk})
    )
