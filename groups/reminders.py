"""Reminder e-mails before sessions, each member mailed once however many runs overlap.

A run first records every (session, member) pair due, with a unique constraint (existing pairs
are left as they are); then, for each pair not yet sent, it claims the pair's row
(operations.claims), mails, and lets go writing `sent_at` in the same conditional UPDATE. Of
two runs at once, one claims a pair and the other skips it; a sent pair is never claimed
again. A mail that fails is let go unsent, and the next run tries it again. A run killed
between the mail and the UPDATE leaves a claim that lapses after CLAIM_FOR: only then could
that member get a second mail.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils import timezone

from groups.models import Membership, Reminder, Session
from operations import claims

logger = logging.getLogger(__name__)

CLAIM_FOR = timedelta(minutes=10)  # far longer than one mail takes


@dataclass
class Outcome:
    sent: int = 0
    skipped: int = 0  # held by another run
    failed: int = 0


def due_sessions(now: datetime, ahead: timedelta):
    return Session.objects.filter(starts_at__gt=now, starts_at__lte=now + ahead)


def record_due(now: datetime, ahead: timedelta) -> None:
    """One Reminder row per member of each session starting within `ahead` (an active member
    with an address); rows already there are kept as they are (the unique constraint)."""
    sessions = list(due_sessions(now, ahead).values_list("pk", "group_id"))
    members = (
        Membership.objects.filter(group_id__in={group for _, group in sessions})
        .filter(member__is_active=True)
        .exclude(member__email="")
        .values_list("group_id", "member_id")
    )
    by_group: dict[int, list[int]] = {}
    for group, member in members:
        by_group.setdefault(group, []).append(member)
    Reminder.objects.bulk_create(
        [
            Reminder(session_id=session, member_id=member)
            for session, group in sessions
            for member in by_group.get(group, [])
        ],
        ignore_conflicts=True,
    )


def _message(reminder: Reminder) -> EmailMultiAlternatives:
    session = reminder.session
    context = {
        "session": session,
        "member": reminder.member,
        "url": settings.SITE_URL + session.get_absolute_url(),
    }
    subject = f"{session.group.name}: {session.local_start:%A %-d %B, %H:%M}"
    return EmailMultiAlternatives(
        subject=subject,
        body=render_to_string("groups/reminder_email.txt", context),
        to=[reminder.member.email],
    )


def send_reminders(*, now: datetime | None = None, ahead: timedelta | None = None) -> Outcome:
    now = now or timezone.now()
    ahead = ahead or timedelta(hours=settings.GROUP_REMINDER_HOURS)
    record_due(now, ahead)
    unsent = Reminder.objects.filter(sent_at__isnull=True, session__in=due_sessions(now, ahead))
    outcome = Outcome()
    for pk in list(unsent.values_list("pk", flat=True)):
        held = claims.claim(unsent, pk, CLAIM_FOR)
        if held is None:
            outcome.skipped += 1
            continue
        reminder = (
            Reminder.objects.select_related("session__group", "session__presenter", "member")
            .prefetch_related("session__session_papers__paper")
            .get(pk=pk)
        )
        answered_no = reminder.session.rsvps.filter(member=reminder.member, answer="no")
        try:
            if not answered_no.exists():
                _message(reminder).send()
        except Exception:
            # One refused address must not stop the others; this one is tried again next run.
            held.release()
            logger.exception("reminder %s failed", pk)
            outcome.failed += 1
            continue
        if held.release(sent_at=timezone.now()):
            outcome.sent += 1
        else:
            logger.warning("reminder %s: mailed after this run's claim was taken over", pk)
    return outcome
