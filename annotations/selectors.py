"""Read queries for annotations, each scoped to what the given user may see."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery

from annotations.models import (
    Comment,
    ListChange,
    ListChangeKind,
    Note,
    ReadingList,
    ReadingListItem,
    Visibility,
)
from papers.listing import with_listing
from papers.models import Authorship, Paper, PaperTag, TagKind
from papers.querysets import listed_author_rows, more_authors


def notes_for_owner(user, *, query: str = "") -> QuerySet[Note]:
    notes = Note.objects.filter(owner=user).select_related("paper")
    query = query.strip()
    if query:
        notes = notes.filter(Q(body__icontains=query) | Q(paper__title__icontains=query))
    return notes.order_by("-updated_at", "-pk")


def paper_notes(user, paper: Paper) -> list[Note]:
    return list(Note.objects.filter(owner=user, paper=paper).order_by("-updated_at", "-pk"))


def lists_with_paper(user, paper: Paper) -> list[ReadingList]:
    """The user's lists, each with `paper_item_id` and `paper_item_status`: the item holding
    `paper` and its reading status, or None."""
    item = ReadingListItem.objects.filter(reading_list=OuterRef("pk"), paper=paper)
    return list(
        ReadingList.objects.filter(owner=user).annotate(
            paper_item_id=Subquery(item.values("pk")[:1]),
            paper_item_status=Subquery(item.values("status")[:1]),
        )
    )


def paper_comments(paper: Paper) -> list[Comment]:
    """Top-level comments in the order posted, each with its `thread_replies` in the order
    posted: one query (comments with their authors) however long the discussion."""
    comments = list(
        Comment.objects.filter(paper=paper).select_related("author").order_by("created_at", "pk")
    )
    for comment in comments:
        comment.thread_replies = []
    top_level = {comment.pk: comment for comment in comments if comment.parent_id is None}
    for comment in comments:
        if comment.parent_id in top_level:
            top_level[comment.parent_id].thread_replies.append(comment)
    return list(top_level.values())


def lab_paper_tags(paper: Paper) -> list[PaperTag]:
    # The paper page prefetches paper_tags with their tags; reuse that instead of a query.
    if "paper_tags" in getattr(paper, "_prefetched_objects_cache", {}):
        return [pt for pt in paper.paper_tags.all() if pt.tag.kind == TagKind.LAB]
    return list(
        PaperTag.objects.filter(paper=paper, tag__kind=TagKind.LAB)
        .select_related("tag")
        .order_by("tag__name")
    )


def own_lists(user) -> QuerySet[ReadingList]:
    return ReadingList.objects.filter(owner=user).annotate(item_count=Count("items"))


def shared_lists(user) -> QuerySet[ReadingList]:
    """Lists shared with `user`: those the lab reads or edits, and those naming them editor."""
    return (
        visible_lists(user)
        .exclude(visibility=Visibility.PRIVATE)
        .select_related("owner")
        .annotate(item_count=Count("items"))
        .order_by("-updated_at", "-pk")
    )


def visible_lists(user) -> QuerySet[ReadingList]:
    """Lists `user` may read: their own, the lab's (read or edit) and those naming them editor.
    The rule itself is ReadingListQuerySet.visible_to."""
    return ReadingList.objects.visible_to(user)


def editable_lists(user) -> QuerySet[ReadingList]:
    """Lists whose items `user` may add, remove, reorder and note (ReadingListQuerySet)."""
    return ReadingList.objects.editable_by(user)


def list_items(reading_list: ReadingList) -> Sequence[ReadingListItem]:
    """Items in list order with their papers, each paper with its first authors as pages
    listing papers show them (papers.listing): one query."""
    items = list(
        reading_list.items.select_related("paper", "added_by")
        .defer("paper__abstract")
        .annotate(
            paper_more_authors=more_authors("paper_id"),
            paper_author_rows=listed_author_rows("paper_id"),
        )
        .order_by("position", "pk")
    )
    for item in items:
        item.paper.more_authors = item.paper_more_authors
        item.paper.author_rows = item.paper_author_rows
    with_listing([item.paper for item in items], tags=False)
    return items


def list_items_for_export(reading_list: ReadingList) -> list[ReadingListItem]:
    """Items in list order with their papers and tags, and every author of each paper as
    `paper.author_list`, names in order: three queries whatever the list's size.

    Exports write every author, so the names are read as plain values, in one query on the
    (paper, position) index, rather than as an authorship and an author instance each.
    """
    items = list(
        reading_list.items.select_related("paper")
        .defer("paper__abstract")
        .prefetch_related(
            Prefetch(
                "paper__paper_tags",
                queryset=PaperTag.objects.select_related("tag").order_by("tag__kind", "tag__name"),
            ),
        )
        .order_by("position", "pk")
    )
    names: dict[int, list[str]] = {item.paper_id: [] for item in items}
    rows = (
        Authorship.objects.filter(paper__reading_list_items__reading_list=reading_list)
        .order_by("paper_id", "position")
        .values_list("paper_id", "author__name")
    )
    for paper_id, name in rows:
        if paper_id in names:  # not a paper added to the list since the items were read
            names[paper_id].append(name)
    for item in items:
        item.paper.author_list = names[item.paper_id]
    return items


@dataclass(frozen=True)
class Activity:
    kind: str  # "comment" | "list" | "tag" | "list-change"
    at: datetime
    user: object
    paper: Paper
    text: str = ""
    reading_list: ReadingList | None = None
    tag_name: str = ""
    change: str = ""  # a list change's kind: removed, moved, noted


def recent_activity(user, limit: int = 50) -> list[Activity]:
    """Newest activity `user` may see: comments, additions to and other edits of the lists
    shared with them, lab tags. Four queries.

    Never private: removed comments, private lists (the viewer's own too) and notes are left
    out; a named-editors list's edits reach its owner and editors only.
    """
    shared = shared_lists(user).values("pk")
    comments = (
        Comment.objects.filter(removed_at__isnull=True)
        .select_related("author", "paper")
        .defer("paper__abstract")
        .order_by("-created_at", "-pk")[:limit]
    )
    additions = (
        ReadingListItem.objects.filter(reading_list__in=shared)
        .select_related("reading_list__owner", "added_by", "paper")
        .defer("paper__abstract")
        .order_by("-added_at", "-pk")[:limit]
    )
    # Additions are the items themselves (older than change records); the rest are changes.
    changes = (
        ListChange.objects.filter(reading_list__in=shared)
        .exclude(kind=ListChangeKind.ADDED)
        .select_related("reading_list", "actor", "paper")
        .defer("paper__abstract")
        .order_by("-at", "-pk")[:limit]
    )
    tags = (
        PaperTag.objects.filter(tag__kind=TagKind.LAB, added_by__isnull=False)
        .select_related("tag", "added_by", "paper")
        .defer("paper__abstract")
        .order_by("-created_at", "-pk")[:limit]
    )
    activity = [Activity("comment", c.created_at, c.author, c.paper, text=c.body) for c in comments]
    activity += [
        Activity(
            "list",
            i.added_at,
            i.added_by or i.reading_list.owner,
            i.paper,
            reading_list=i.reading_list,
        )
        for i in additions
    ]
    activity += [
        Activity("list-change", c.at, c.actor, c.paper, reading_list=c.reading_list, change=c.kind)
        for c in changes
    ]
    activity += [
        Activity("tag", t.created_at, t.added_by, t.paper, tag_name=t.tag.name) for t in tags
    ]
    activity.sort(key=lambda entry: entry.at, reverse=True)
    return activity[:limit]
