"""Writes that touch several rows or models, each atomic and keyword-only."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from annotations.list_changes import record_change
from annotations.models import (
    Comment,
    ListAdditionByLink,
    ListChangeKind,
    MemberReading,
    ReadingList,
    ReadingListItem,
)
from papers.link_tasks import ask_for_link
from papers.models import LinkFetch, Paper, PaperTag, Tag, TagKind
from papers.tags import service as tag_service
from papers.tags.identity import normalize_tag_name


class Refused(Exception):
    """A write that cannot happen, with a message for the person who asked for it."""


class AlreadyThere(Refused):
    """The paper is already in the list, or already carries the tag."""


class TagNameClash(Refused):
    """A different lab tag already owns the URL slug this name would get ("C++" and "C")."""


def _lock_list(reading_list: ReadingList) -> None:
    # Serialises position changes on one list (a no-op lock on SQLite, whose writers queue).
    ReadingList.objects.select_for_update().filter(pk=reading_list.pk).first()


@transaction.atomic
def add_paper_to_list(*, reading_list: ReadingList, paper: Paper, by=None) -> ReadingListItem:
    """Append `paper` at the end of the list, added by `by` (default: the owner); raises
    AlreadyThere if it is in it."""
    _lock_list(reading_list)
    if reading_list.items.filter(paper=paper).exists():
        raise AlreadyThere(f"“{paper.display_title}” is already in “{reading_list.name}”.")
    last = reading_list.items.aggregate(last=Max("position"))["last"]
    try:
        with transaction.atomic():
            item = ReadingListItem.objects.create(
                reading_list=reading_list,
                paper=paper,
                position=0 if last is None else last + 1,
                added_by_id=by.pk if by is not None else reading_list.owner_id,
            )
    except IntegrityError:
        raise AlreadyThere(
            f"“{paper.display_title}” is already in “{reading_list.name}”."
        ) from None
    ReadingList.objects.filter(pk=reading_list.pk).update(updated_at=timezone.now())
    if by is not None:
        record_change(reading_list=reading_list, actor=by, kind=ListChangeKind.ADDED, paper=paper)
    return item


@transaction.atomic
def create_list_with_paper(*, owner, name: str, paper: Paper) -> ReadingList:
    reading_list = ReadingList.objects.create(owner=owner, name=name)
    add_paper_to_list(reading_list=reading_list, paper=paper)
    return reading_list


def _renumber(items: list[ReadingListItem]) -> None:
    changed = []
    for position, item in enumerate(items):
        if item.position != position:
            item.position = position
            changed.append(item)
    ReadingListItem.objects.bulk_update(changed, ["position"])


@transaction.atomic
def remove_item(*, item: ReadingListItem, by=None) -> None:
    reading_list = item.reading_list
    _lock_list(reading_list)
    item.delete()
    _renumber(list(reading_list.items.order_by("position", "pk")))
    if by is not None:
        record_change(
            reading_list=reading_list, actor=by, kind=ListChangeKind.REMOVED, paper=item.paper
        )


def _removed(item: ReadingListItem) -> ReadingListItem.DoesNotExist:
    # The view found the item, then another request removed it: the page answers as for an
    # item that never existed (404), not with a 500.
    return ReadingListItem.DoesNotExist(f"Reading list item {item.pk} was removed.")


@transaction.atomic
def move_item(
    *, item: ReadingListItem, direction: str = "", to: int | None = None, by=None
) -> bool:
    """Swap the item with its neighbour ("up" or "down", the keyboard's buttons), or move it to
    position `to` counted from 0 (a drag and drop); False when it stays where it is.

    The list's row is locked first, so two editors reordering at once take turns: each reads
    the order the other left and positions are rewritten as 0..n-1 in one transaction (gaps
    or ties left by older data heal on the way; no item is lost or doubled).
    Raises ReadingListItem.DoesNotExist when the item was removed since it was read.
    """
    reading_list = item.reading_list
    _lock_list(reading_list)
    items = list(reading_list.items.order_by("position", "pk"))
    index = next((i for i, candidate in enumerate(items) if candidate.pk == item.pk), None)
    if index is None:
        raise _removed(item)
    if to is None:
        target = index - 1 if direction == "up" else index + 1
        moved = 0 <= target < len(items)
        if moved:
            items[index], items[target] = items[target], items[index]
    else:
        target = max(0, min(to, len(items) - 1))
        moved = target != index
        items.insert(target, items.pop(index))
    _renumber(items)
    if moved and by is not None:
        record_change(
            reading_list=reading_list, actor=by, kind=ListChangeKind.MOVED, paper=item.paper
        )
    return moved


@transaction.atomic
def set_item_note(*, item: ReadingListItem, note: str, by) -> None:
    """The item's note, one per item, written by any editor. Raises ReadingListItem.DoesNotExist
    when the item was removed since it was read."""
    item.note = note
    if not ReadingListItem.objects.filter(pk=item.pk).update(note=note, updated_at=timezone.now()):
        raise _removed(item)
    record_change(
        reading_list=item.reading_list, actor=by, kind=ListChangeKind.NOTED, paper=item.paper
    )


def set_member_status(*, item: ReadingListItem, member, status: str) -> None:
    """`member`'s own reading status on someone else's list's item (MemberReading). Raises
    ReadingListItem.DoesNotExist when the item was removed since it was read."""
    try:
        MemberReading.objects.update_or_create(
            item_id=item.pk, member=member, defaults={"status": status}
        )
    except IntegrityError:
        # Either the item was deleted meanwhile (its key is gone), or the same member's other
        # tab created the row first: try once more as an update.
        if not ReadingListItem.objects.filter(pk=item.pk).exists():
            raise _removed(item) from None
        MemberReading.objects.filter(item_id=item.pk, member=member).update(status=status)


def set_item_status(*, item: ReadingListItem, status: str, priority: int | None) -> None:
    """Raises ReadingListItem.DoesNotExist when the item was removed since it was read."""
    item.status, item.priority, item.updated_at = status, priority, timezone.now()
    changed = ReadingListItem.objects.filter(pk=item.pk).update(
        status=status, priority=priority, updated_at=item.updated_at
    )
    if not changed:
        raise _removed(item)


def _refuse_slug_clash(name: str) -> None:
    clash = tag_service.tag_taking_place_of(TagKind.LAB, name)
    if clash is not None:
        raise TagNameClash(
            f"“{name}” is too close to the existing lab tag “{clash.name}”: "
            "use that tag or choose a more distinct name."
        )


@transaction.atomic
def add_lab_tag(*, user, paper: Paper, name: str) -> PaperTag:
    """Tag `paper` with the lab tag `name`, creating the tag when no equivalent exists."""
    name = normalize_tag_name(name)
    # Its own tag, or the tag a curator merged this spelling into.
    tag = tag_service.tag_named(TagKind.LAB, name)
    if tag is None:
        _refuse_slug_clash(name)
        try:
            with transaction.atomic():
                tag = Tag.objects.create(kind=TagKind.LAB, name=name)
        except IntegrityError:
            # Someone created the same tag (or a clashing one) a moment ago.
            tag = tag_service.tag_named(TagKind.LAB, name)
            if tag is None:
                _refuse_slug_clash(name)
                raise
    if PaperTag.objects.filter(paper=paper, tag=tag).exists():
        raise AlreadyThere(f"“{paper.display_title}” is already tagged “{tag.name}”.")
    try:
        with transaction.atomic():
            return PaperTag.objects.create(paper=paper, tag=tag, added_by=user)
    except IntegrityError:
        raise AlreadyThere(f"“{paper.display_title}” is already tagged “{tag.name}”.") from None


def remove_comment(*, comment: Comment, by) -> None:
    comment.removed_at = timezone.now()
    comment.removed_by = by
    comment.save(update_fields=["removed_at", "removed_by", "updated_at"])


@transaction.atomic
def withdraw_comment(*, comment: Comment, by) -> None:
    """Remove `comment` with its text for good, where a restore must not bring it back (its
    text was a highlight that is private or gone): deleted when nothing replies to it, else
    removed with its body and quote blanked so the replies keep their thread. A reply removed
    by a moderator counts: deleting its parent would delete it too."""
    if not comment.replies.exists():
        comment.delete()
        return
    comment.body = comment.body_html = ""
    comment.quote = comment.quote_prefix = comment.quote_suffix = comment.anchor_state = ""
    comment.quote_start = None
    if comment.removed_at is None:
        comment.removed_at, comment.removed_by = timezone.now(), by
    comment.save()


@transaction.atomic
def add_to_list_by_link(
    *, reading_list: ReadingList, link: str, by, invoked_by: str
) -> Paper | LinkFetch | None:
    """The paper `link` names, for `by` to put on `reading_list` now, or its fetch, queued
    (papers.link_tasks.ask_for_link) with the list addition that waits for it: the paper goes
    on the list when the fetch finishes, in the transaction that records it. The fetch is
    `by`'s request (theirs to follow, counted in their lookups), not the list owner's: on a
    lab-edited list they differ. None when `link` names no paper; raises LookupFailed and
    TooManyLookups as ask_for_link does."""
    asked = ask_for_link(
        link,
        user=by,
        invoked_by=invoked_by,
        return_to=reading_list.get_absolute_url(),
    )
    if isinstance(asked, LinkFetch):
        ListAdditionByLink.objects.create(link_fetch=asked, reading_list=reading_list)
        # Finished already when the task backend runs tasks as they are queued.
        settle_additions_by_link([asked.pk])
    return asked


@transaction.atomic
def settle_additions_by_link(fetch_ids: list[int]) -> int:
    """Put on their lists the papers of the finished fetches among `fetch_ids` that members
    asked for there (a paper already on the list stays as it is); each addition is deleted as
    it is settled, so a second call for the same fetches adds nothing. How many were added."""
    added = 0
    finished = [LinkFetch.Status.DONE, LinkFetch.Status.FAILED]
    waiting = ListAdditionByLink.objects.filter(
        link_fetch__in=fetch_ids, link_fetch__status__in=finished
    ).select_related("reading_list", "link_fetch__paper")
    for addition in waiting:
        # Deleted first: of two settlers at once, only the one whose delete took it adds it.
        deleted, _ = ListAdditionByLink.objects.filter(pk=addition.pk).delete()
        paper = addition.link_fetch.paper
        if not deleted or paper is None:
            continue
        try:
            add_paper_to_list(reading_list=addition.reading_list, paper=paper)
        except AlreadyThere:
            continue
        added += 1
    return added


@transaction.atomic
def add_papers_to_list(*, reading_list: ReadingList, papers: list[Paper]) -> list[Paper]:
    """Append the papers not yet in the list, in the order given; returns those added.

    Many papers at once (triage's bulk actions): one read of the list's papers and one
    insert, instead of add_paper_to_list's handful of queries per paper.
    """
    _lock_list(reading_list)
    present = set(reading_list.items.values_list("paper_id", flat=True))
    new = list({paper.pk: paper for paper in papers if paper.pk not in present}.values())
    if not new:
        return []
    last = reading_list.items.aggregate(last=Max("position"))["last"]
    start = 0 if last is None else last + 1
    ReadingListItem.objects.bulk_create(
        ReadingListItem(
            reading_list=reading_list,
            paper=paper,
            position=start + offset,
            added_by_id=reading_list.owner_id,
        )
        for offset, paper in enumerate(new)
    )
    ReadingList.objects.filter(pk=reading_list.pk).update(updated_at=timezone.now())
    return new


@transaction.atomic
def save_reading_list(*, reading_list: ReadingList) -> None:
    """Save the list; when it becomes the owner's default, the previous default stops being one
    first (the database allows one default per owner)."""
    if reading_list.is_default:
        ReadingList.objects.filter(owner=reading_list.owner_id, is_default=True).exclude(
            pk=reading_list.pk
        ).update(is_default=False)
    reading_list.save()
