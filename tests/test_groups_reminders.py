"""Reminder e-mails before sessions: each member once, however many runs start together."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from groups import services
from groups.models import Reminder
from groups.reminders import send_reminders
from tests.factories import make_paper, make_user
from tests.group_helpers import make_group, make_session


def a_group_meeting_tomorrow():
    members = [make_user("ann"), make_user("bea"), make_user("cal")]
    group = make_group(members)
    session = make_session(group, days=0.5, papers=[make_paper("Attention paper")])
    make_session(group, days=5)  # not yet due
    return members, session


@pytest.mark.django_db
def test_each_member_is_reminded_once_with_the_sessions_time_and_paper():
    (ann, bea, _cal), session = a_group_meeting_tomorrow()
    services.answer(session=session, member=bea, answer="no")
    assert send_reminders().sent == 3
    assert sorted(m.to[0] for m in mail.outbox) == ["ann@example.org", "cal@example.org"]
    body = mail.outbox[0].body
    assert "Attention paper" in body and "Europe/Paris" in body and "Room 4.12" in body
    assert session.get_absolute_url() in body
    assert send_reminders().sent == 0 and len(mail.outbox) == 2  # a second run: nobody


@pytest.mark.django_db
def test_a_failed_mail_is_tried_again_by_the_next_run(monkeypatch):
    a_group_meeting_tomorrow()
    monkeypatch.setattr("django.core.mail.EmailMessage.send", lambda self: 1 / 0)
    outcome = send_reminders()
    assert outcome.failed == 3 and not Reminder.objects.filter(sent_at__isnull=False).exists()
    monkeypatch.undo()
    assert send_reminders().sent == 3 and len(mail.outbox) == 3


@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_mail_each_member_once(shared_database):
    a_group_meeting_tomorrow()
    shared_database.share()
    outcomes = shared_database.at_once([send_reminders, send_reminders])
    assert sorted(m.to[0] for m in mail.outbox) == [
        "ann@example.org",
        "bea@example.org",
        "cal@example.org",
    ]
    assert sum(o.sent for o in outcomes) == 3
    assert shared_database.read(lambda: Reminder.objects.filter(sent_at__isnull=True).count()) == 0


@pytest.mark.django_db(transaction=True)
def test_two_scheduled_commands_at_once_mail_each_member_once(shared_database):
    a_group_meeting_tomorrow()
    shared_database.share()

    def run() -> str:
        out = io.StringIO()
        call_command("send_group_reminders", stdout=out)
        return out.getvalue()

    outputs = shared_database.at_once([run, run])
    assert len(mail.outbox) == 3
    assert len({m.to[0] for m in mail.outbox}) == 3
    assert any("3 reminder(s) sent" in out for out in outputs), outputs


@pytest.mark.django_db
def test_a_session_further_off_than_the_window_is_not_announced_yet():
    _members, _session = a_group_meeting_tomorrow()
    assert send_reminders(now=timezone.now() - timedelta(days=2)).sent == 0
