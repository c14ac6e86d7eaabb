"""Reads for the reading groups' pages and feeds. Groups are visible to every member of the
lab; what a session page gathers from its papers goes through the selectors that scope it to
the reader (never another member's private highlight)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Prefetch, QuerySet
from django.utils import timezone

from annotations.models import Comment
from annotations.selectors import paper_comments
from groups.models import CalendarLink, Membership, ReadingGroup, Rsvp, Session, SessionPaper
from highlights.models import Highlight
from highlights.selectors import paper_highlights
from papers.models import Paper


def all_groups(user) -> QuerySet[ReadingGroup]:
    """Every group, with its member count and whether `user` is in it: one query."""
    mine = Membership.objects.filter(group=OuterRef("pk"), member=user)
    return ReadingGroup.objects.annotate(member_count=Count("memberships"), joined=Exists(mine))


def is_member(group: ReadingGroup, user) -> bool:
    return Membership.objects.filter(group=group, member=user).exists()


def queue(group: ReadingGroup) -> list[Membership]:
    """The members in presenter order: the first presents next."""
    return list(group.memberships.select_related("member").order_by("queue_position", "pk"))


def _with_people_and_papers(sessions: QuerySet[Session]) -> QuerySet[Session]:
    papers = SessionPaper.objects.select_related("paper").defer("paper__abstract")
    return sessions.select_related("group", "presenter").prefetch_related(
        Prefetch("session_papers", queryset=papers)
    )


def group_sessions(group: ReadingGroup) -> tuple[list[Session], list[Session]]:
    """The group's upcoming sessions (soonest first) and past ones (latest first)."""
    now = timezone.now()
    sessions = _with_people_and_papers(group.sessions.all())
    upcoming = list(sessions.filter(starts_at__gte=now).order_by("starts_at", "pk"))
    past = list(sessions.filter(starts_at__lt=now).order_by("-starts_at", "-pk"))
    return upcoming, past


def own_calendar_link(user, group: ReadingGroup | None) -> CalendarLink | None:
    return CalendarLink.objects.filter(owner=user, group=group).first()


def session_for_page(pk: int) -> Session | None:
    return _with_people_and_papers(Session.objects.filter(pk=pk)).first()


@dataclass
class PaperGathered:
    """One of a session's papers with what `user` may see of the lab's work on it."""

    paper: Paper
    highlights: list[Highlight]
    comments: list[Comment]


def gathered(session: Session, user) -> list[PaperGathered]:
    """Each paper's highlights `user` may see (their own and the lab's: paper_highlights) and
    its discussion: two queries a paper (a session reads one to three)."""
    return [
        PaperGathered(
            paper=item.paper,
            highlights=paper_highlights(user, item.paper, newest_first=False),
            comments=paper_comments(item.paper),
        )
        for item in session.session_papers.all()
    ]


def rsvps(session: Session) -> dict[str, list[Rsvp]]:
    """Answers by kind (yes, maybe, no), each with its member."""
    answers: dict[str, list[Rsvp]] = {answer: [] for answer in Rsvp.Answer.values}
    for rsvp in session.rsvps.select_related("member").order_by("member__username"):
        answers[rsvp.answer].append(rsvp)
    return answers


def own_rsvp(session: Session, user) -> str:
    return session.rsvps.filter(member=user).values_list("answer", flat=True).first() or ""


def swappable(session: Session) -> list[Session]:
    """The group's other upcoming sessions whose presenter this one's could swap with."""
    return list(
        session.group.sessions.filter(starts_at__gte=timezone.now())
        .exclude(pk=session.pk)
        .select_related("presenter", "group")
        .order_by("starts_at", "pk")
    )


def feed_link(key: str) -> CalendarLink | None:
    """The calendar link of this secret key, if it was not revoked (and its owner is active)."""
    return (
        CalendarLink.objects.select_related("owner", "group")
        .filter(key=key, owner__is_active=True)
        .first()
    )


def feed_sessions(link: CalendarLink) -> list[Session]:
    """The sessions a feed lists: the group's, or those of every group the owner is in."""
    if link.group is not None:
        sessions = Session.objects.filter(group=link.group)
    else:
        sessions = Session.objects.filter(group__memberships__member=link.owner)
    return list(_with_people_and_papers(sessions).order_by("starts_at", "pk"))
