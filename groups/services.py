"""Writes that touch several rows: joining, the presenter queue, notes into the discussion."""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from annotations import discussion
from groups.models import CalendarLink, Membership, ReadingGroup, Rsvp, Session, SessionPaper
from papers.models import Paper


def _lock(group: ReadingGroup) -> None:
    """Queue changes of one group one at a time (a row lock on PostgreSQL; SQLite's writes
    are serialised already)."""
    ReadingGroup.objects.select_for_update().filter(pk=group.pk).first()


def _queue_end(group: ReadingGroup) -> int:
    last = group.memberships.aggregate(last=Max("queue_position"))["last"]
    return 0 if last is None else last + 1


@transaction.atomic
def create_group(*, group: ReadingGroup, creator) -> ReadingGroup:
    group.save()
    Membership.objects.create(group=group, member=creator, queue_position=0)
    return group


@transaction.atomic
def join(*, group: ReadingGroup, member) -> bool:
    """Join at the end of the presenter queue; False if already in."""
    _lock(group)
    if group.memberships.filter(member=member).exists():
        return False
    Membership.objects.create(group=group, member=member, queue_position=_queue_end(group))
    return True


def leave(*, group: ReadingGroup, member) -> bool:
    """Leave the group (their RSVPs stay with past sessions); False if not in it."""
    deleted, _ = group.memberships.filter(member=member).delete()
    return bool(deleted)


@transaction.atomic
def schedule_session(
    *, group: ReadingGroup, starts_at, papers: list[Paper], agenda: str = ""
) -> Session:
    """A new session presented by the member at the head of the queue, who moves to its end:
    the queue rotates, one session at a time."""
    _lock(group)
    head = group.memberships.order_by("queue_position", "pk").first()
    session = Session.objects.create(
        group=group,
        starts_at=starts_at,
        agenda=agenda,
        presenter=head.member if head else None,
    )
    if head is not None:
        head.queue_position = _queue_end(group)
        head.save(update_fields=["queue_position"])
    set_papers(session=session, papers=papers)
    return session


@transaction.atomic
def edit_session(
    *, session: Session, starts_at, papers: list[Paper], agenda: str, presenter=None
) -> None:
    session.starts_at, session.agenda, session.presenter = starts_at, agenda, presenter
    session.save()
    set_papers(session=session, papers=papers)


def set_papers(*, session: Session, papers: list[Paper]) -> None:
    """The session reads `papers`, in that order; a paper dropped takes its link to the notes
    with it (its comment in the paper's discussion stays, as any comment does)."""
    kept = {item.paper_id: item for item in session.session_papers.all()}
    wanted = [paper.pk for paper in papers]
    session.session_papers.exclude(paper_id__in=wanted).delete()
    for position, paper in enumerate(papers):
        item = kept.get(paper.pk) or SessionPaper(session=session, paper=paper)
        item.position = position
        item.save()
    if session.notes:
        link_notes(session)


@transaction.atomic
def swap_presenters(*, first: Session, second: Session) -> None:
    """Two sessions of one group exchange presenters."""
    if first.group_id != second.group_id:
        raise ValueError("Only sessions of one group swap presenters.")
    _lock(first.group)
    rows = {
        s.pk: s for s in Session.objects.select_for_update().filter(pk__in=[first.pk, second.pk])
    }
    a, b = rows[first.pk], rows[second.pk]
    a.presenter_id, b.presenter_id = b.presenter_id, a.presenter_id
    a.save(update_fields=["presenter"])
    b.save(update_fields=["presenter"])


def answer(*, session: Session, member, answer: str) -> None:
    Rsvp.objects.update_or_create(session=session, member=member, defaults={"answer": answer})


def notes_comment_body(session: Session) -> str:
    """Markdown for the paper's discussion: which session, its page, then the notes."""
    when = f"{session.local_start:%A %-d %B %Y, %H:%M} ({session.group.time_zone})"
    heading = (
        f"**Meeting notes** of the reading group “{session.group.name}”, {when}: "
        # Absolute: the discussion's Markdown links only to http(s) addresses.
        f"[the session's page]({settings.SITE_URL}{session.get_absolute_url()})"
    )
    return f"{heading}\n\n{session.notes}"


@transaction.atomic
def save_notes(*, session: Session, notes: str, by) -> None:
    session.notes = notes
    session.notes_by, session.notes_at = by, timezone.now()
    session.save()
    link_notes(session)


def link_notes(session: Session) -> None:
    """Each paper's discussion carries the notes, as a comment by who wrote them last (the
    route highlights.threads takes for a lab highlight): posted once, then edited to match.
    A comment removed in the discussion stays removed; notes emptied withdraw nothing (the
    discussion keeps what was said)."""
    if not session.notes:
        return
    body = notes_comment_body(session)
    author = session.notes_by
    for item in session.session_papers.select_related("comment", "paper"):
        comment = item.comment
        if comment is None:
            item.comment = discussion.post_comment(paper=item.paper, author=author, body=body)
            item.save(update_fields=["comment"])
        elif comment.removed_at is None and comment.body != body:
            discussion.edit_comment(comment=comment, body=body)


def new_calendar_link(*, owner, group: ReadingGroup | None) -> CalendarLink:
    """A new secret address; the member's previous one for the same feed stops working."""
    with transaction.atomic():
        CalendarLink.objects.filter(owner=owner, group=group).delete()
        try:
            with transaction.atomic():
                return CalendarLink.objects.create(owner=owner, group=group)
        except IntegrityError:  # made at the same moment by another request: that one stands
            return CalendarLink.objects.get(owner=owner, group=group)


def revoke_calendar_link(*, owner, group: ReadingGroup | None) -> bool:
    deleted, _ = CalendarLink.objects.filter(owner=owner, group=group).delete()
    return bool(deleted)
