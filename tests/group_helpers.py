"""A reading group and its sessions, for the groups tests."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.utils import timezone

from groups import services
from groups.models import ReadingGroup, Session

PARIS = ZoneInfo("Europe/Paris")


def make_group(members, name: str = "Thursday club", **fields) -> ReadingGroup:
    fields.setdefault("time_zone", "Europe/Paris")
    fields.setdefault("place", "Room 4.12")
    fields.setdefault("video_link", "https://meet.example.org/thursday")
    group = services.create_group(group=ReadingGroup(name=name, **fields), creator=members[0])
    for member in members[1:]:
        services.join(group=group, member=member)
    return group


def make_session(group: ReadingGroup, *, days: float = 7, papers=(), **fields) -> Session:
    starts_at = timezone.now() + timedelta(days=days)
    return services.schedule_session(
        group=group, starts_at=starts_at, papers=list(papers), **fields
    )


def paris(*args) -> datetime:
    return datetime(*args, tzinfo=PARIS)
