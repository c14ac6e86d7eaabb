"""Who reads what on a list: each member's own status, "read by N of M", who is reading now.

The owner's status is the item's own (ReadingListItem.status); every other member's is a
MemberReading row. M is everyone who may read the list: the active members for a list the lab
reads or edits, the owner and named editors for a named-editors list, the owner alone else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model

from annotations.models import (
    LAB_READABLE,
    ListEditor,
    MemberReading,
    ReadingList,
    ReadingListItem,
    ReadingStatus,
    Visibility,
)


@dataclass
class ItemReading:
    my_status: str
    read_count: int = 0
    reading_now: list[str] = field(default_factory=list)


def list_audience_size(reading_list: ReadingList) -> int:
    """M in "read by N of M": how many members may read the list."""
    if reading_list.visibility in LAB_READABLE:
        return get_user_model().objects.filter(is_active=True).count()
    if reading_list.visibility == Visibility.EDITORS:
        return 1 + ListEditor.objects.filter(reading_list=reading_list).count()
    return 1


def with_readings(reading_list: ReadingList, items: Sequence[ReadingListItem], user) -> int:
    """Set `item.reading` (an ItemReading for `user`) on each item; returns M. Two queries
    on a shared list (the members' rows with their names, and M), none on a private one:
    rows left from when it was shared are no one's business now."""
    owner = reading_list.owner
    owner_name = owner.get_username()
    shared = reading_list.visibility != Visibility.PRIVATE
    rows = (
        MemberReading.objects.filter(item__in=[item.pk for item in items]).select_related("member")
        if shared and items
        else []
    )
    by_item: dict[int, list[MemberReading]] = {}
    for row in rows:
        by_item.setdefault(row.item_id, []).append(row)
    for item in items:
        statuses = [(owner.pk, owner_name, item.status)] + [
            (row.member_id, row.member.get_username(), row.status)
            for row in by_item.get(item.pk, [])
        ]
        mine = next((s for pk, _, s in statuses if pk == user.pk), ReadingStatus.TO_READ)
        item.reading = ItemReading(  # type: ignore[attr-defined]
            my_status=mine,
            read_count=sum(1 for _, _, s in statuses if s == ReadingStatus.READ),
            reading_now=sorted(name for _, name, s in statuses if s == ReadingStatus.READING),
        )
    return list_audience_size(reading_list)
