"""The discussion under papers: threads one level deep, and who hears about a comment.

A comment notifies, once each and never its own author: the members it mentions, the author
of the comment it replies to, and the owners of reading lists holding the paper (their own
lists, private or shared; a notification never names a list).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from annotations.anchors import Anchor
from annotations.models import (
    AnchorState,
    Comment,
    Notification,
    NotificationKind,
    ReadingList,
    ReadingListItem,
)
from papers.models import Paper

NOTIFICATIONS_SHOWN = 100


def thread_root(comment: Comment | None) -> Comment | None:
    """The top-level comment a reply attaches to: replies to replies join their thread."""
    while comment is not None and comment.parent_id is not None:
        comment = comment.parent
    return comment


@transaction.atomic
def post_comment(
    *, paper: Paper, author, body: str, parent: Comment | None = None, anchor: Anchor | None = None
) -> Comment:
    """`anchor` (checked against the abstract by CommentForm) only on a top-level comment."""
    comment = Comment(paper=paper, author=author, body=body, parent=thread_root(parent))
    if anchor is not None:
        if comment.parent is not None:
            raise ValueError("A reply carries no anchor.")
        comment.quote, comment.quote_prefix = anchor.quote, anchor.prefix
        comment.quote_suffix, comment.quote_start = anchor.suffix, anchor.start
        comment.anchor_state = AnchorState.ATTACHED
    comment.save()
    _notify(comment, _recipients(comment))
    return comment


@transaction.atomic
def edit_comment(*, comment: Comment, body: str) -> Comment:
    """Keeps each member's notification true to the mentions the edited comment has.

    A member the edit mentions is told, once: a new notification, or the one they had for a
    weaker reason (a reply, a listed paper) becomes an unread mention. A member it no longer
    mentions who has not read the mention yet is untold: the notification goes back to their
    other reason, or goes. A mention already read stays, as the notifications of a removed
    comment stay (the page shows the comment as it is now), and mentioning that member again
    does not tell them twice.
    """
    comment.body = body
    comment.edited_at = timezone.now()
    comment.save()
    mentioned = {user.pk for user in comment.mentioned_users}
    told = Notification.objects.filter(comment=comment)
    _notify(comment, {pk: NotificationKind.MENTION for pk in mentioned})  # the untold only
    told.filter(recipient_id__in=mentioned).exclude(kind=NotificationKind.MENTION).update(
        kind=NotificationKind.MENTION, read_at=None, created_at=timezone.now()
    )
    withdrawn = list(
        told.filter(kind=NotificationKind.MENTION, read_at__isnull=True).exclude(
            recipient_id__in=mentioned
        )
    )
    other_reasons = _reasons_besides_mentions(comment) if withdrawn else {}
    for notification in withdrawn:
        if notification.recipient_id in other_reasons:
            notification.kind = other_reasons[notification.recipient_id]
            notification.save(update_fields=["kind"])
        else:
            notification.delete()
    return comment


def _recipients(comment: Comment) -> dict[int, str]:
    """Member id -> why they hear about `comment`; the strongest reason wins (mention first)."""
    recipients = _reasons_besides_mentions(comment)
    for user in comment.mentioned_users:
        recipients[user.pk] = NotificationKind.MENTION
    return recipients


def _reasons_besides_mentions(comment: Comment) -> dict[int, str]:
    """Member id -> why they hear about `comment` whatever its text says: a reply to their
    comment wins over the paper being in their reading lists."""
    recipients: dict[int, str] = {}
    owners = ReadingListItem.objects.filter(
        paper_id=comment.paper_id, reading_list__owner__is_active=True
    ).values_list("reading_list__owner_id", flat=True)
    for owner_id in owners:
        recipients[owner_id] = NotificationKind.LISTED_PAPER
    if comment.parent is not None and comment.parent.author.is_active:
        recipients[comment.parent.author_id] = NotificationKind.REPLY
    return recipients


def _notify(comment: Comment, recipients: dict[int, str]) -> None:
    recipients.pop(comment.author_id, None)
    # The unique (recipient, comment) constraint keeps the first notification when an edit
    # mentions someone already told about this comment.
    Notification.objects.bulk_create(
        [
            Notification(recipient_id=recipient_id, kind=kind, comment=comment)
            for recipient_id, kind in recipients.items()
        ],
        ignore_conflicts=True,
    )


def notifications_for(user) -> QuerySet[Notification]:
    """`user`'s own notifications, newest first, with what each is about. A list change on a
    list `user` can no longer read (its sharing changed since) is left out."""
    return (
        Notification.objects.filter(recipient=user)
        .filter(
            Q(list_change__isnull=True)
            | Q(list_change__reading_list__in=ReadingList.objects.visible_to(user).values("pk"))
        )
        .select_related(
            "comment__author",
            "comment__paper",
            "list_change__actor",
            "list_change__paper",
            "list_change__reading_list",
            "suggestion__sender",
            "suggestion__paper",
        )
        .defer(
            "comment__paper__abstract",
            "list_change__paper__abstract",
            "suggestion__paper__abstract",
        )
        .order_by("-created_at", "-pk")
    )


def unread_count(user) -> int:
    return Notification.objects.filter(recipient=user, read_at__isnull=True).count()


def mark_read(notification: Notification) -> None:
    if notification.read_at is None:
        notification.read_at = timezone.now()
        notification.save(update_fields=["read_at"])


def mark_all_read(user) -> int:
    return Notification.objects.filter(recipient=user, read_at__isnull=True).update(
        read_at=timezone.now()
    )
