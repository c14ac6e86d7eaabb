"""Lab awareness: who reads a paper in a shared reading list, and the lab's busiest papers.

Only lists the lab reads or edits (LAB_READABLE) are ever read here: a private list, or one of
named editors, is never counted or shown. Comments are counted, never quoted; suggestions are
counted (for whom a paper was suggested), never named."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Max
from django.utils import timezone

from annotations.models import (
    LAB_READABLE,
    Comment,
    MemberReading,
    ReadingListItem,
    ReadingStatus,
    Suggestion,
)
from papers.models import DISPLAY_TITLE_FIELDS, Paper

PERIODS = {"week": ("This week", timedelta(days=7)), "month": ("This month", timedelta(days=30))}
DEFAULT_PERIOD = "week"
TOP = 10


@dataclass(frozen=True)
class LabReader:
    name: str
    list_name: str
    status: str


def lab_readers(paper: Paper) -> list[LabReader]:
    """Every item holding `paper` in a shared list, by member then list. One query."""
    items = (
        ReadingListItem.objects.filter(
            paper=paper,
            reading_list__visibility__in=LAB_READABLE,
            reading_list__owner__is_active=True,
        )
        .select_related("reading_list__owner")
        .order_by("reading_list__owner__username", "reading_list__name", "pk")
    )
    return [
        LabReader(
            name=item.reading_list.owner.get_full_name() or item.reading_list.owner.get_username(),
            list_name=item.reading_list.name,
            status=item.get_status_display().lower(),
        )
        for item in items
    ]


@dataclass(frozen=True)
class Ranked:
    paper: Paper
    count: int


@dataclass(frozen=True)
class LabPage:
    period: str
    most_saved: list[Ranked]
    most_discussed: list[Ranked]
    recently_added: list[Ranked]
    reading_now: list[Ranked]


def lab_page(period: str) -> LabPage:
    """The lab's most saved, most discussed and most recently added papers since the period's
    start. Four queries: three rankings and the papers they name."""
    since = timezone.now() - PERIODS[period][1]
    shared_items = ReadingListItem.objects.filter(
        reading_list__visibility__in=LAB_READABLE, added_at__gte=since
    ).values("paper_id")
    saved = list(
        shared_items.annotate(n=Count("reading_list", distinct=True))
        .order_by("-n", "-paper_id")
        .values_list("paper_id", "n")[:TOP]
    )
    recent = list(
        shared_items.annotate(n=Count("reading_list", distinct=True), last=Max("added_at"))
        .order_by("-last", "-paper_id")
        .values_list("paper_id", "n")[:TOP]
    )
    discussed = list(
        Comment.objects.filter(created_at__gte=since, removed_at__isnull=True)
        .values("paper_id")
        .annotate(n=Count("pk"))
        .order_by("-n", "-paper_id")
        .values_list("paper_id", "n")[:TOP]
    )
    reading = _reading_since(since)
    papers = Paper.objects.only(*DISPLAY_TITLE_FIELDS).in_bulk(
        {pk for rows in (saved, recent, discussed, reading) for pk, _ in rows}
    )

    def ranked(rows) -> list[Ranked]:
        return [Ranked(papers[pk], n) for pk, n in rows if pk in papers]

    return LabPage(period, ranked(saved), ranked(discussed), ranked(recent), ranked(reading))


_STARTED = (ReadingStatus.READING, ReadingStatus.READ)


def _reading_since(since) -> list[tuple[int, int]]:
    """What the lab is reading: papers whose status turned to reading or read on a list the lab
    reads or edits (the owner's on the item, the others' in MemberReading), or that were
    suggested to someone, since `since`; (paper id, members) by members. Three queries.
    An item's updated_at also moves with its priority or note: close enough for a week."""
    on_lab_lists = {"reading_list__visibility__in": LAB_READABLE}
    pairs = set(
        ReadingListItem.objects.filter(
            status__in=_STARTED, updated_at__gte=since, **on_lab_lists
        ).values_list("paper_id", "reading_list__owner_id")
    )
    pairs |= set(
        MemberReading.objects.filter(
            status__in=_STARTED,
            updated_at__gte=since,
            item__reading_list__visibility__in=LAB_READABLE,
        ).values_list("item__paper_id", "member_id")
    )
    pairs |= set(
        Suggestion.objects.filter(created_at__gte=since).values_list("paper_id", "recipient_id")
    )
    members: dict[int, int] = {}
    for paper_id, _member in pairs:
        members[paper_id] = members.get(paper_id, 0) + 1
    return sorted(members.items(), key=lambda row: (-row[1], -row[0]))[:TOP]
