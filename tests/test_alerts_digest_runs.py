"""Digest runs on several servers (issue 29): two `send_digests` at once mail every member
once (the second is skipped: operations.runs), a member another run holds is skipped, and one
member's failed e-mail neither stops the run nor loses that member's digest."""

from __future__ import annotations

import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from alerts import digest
from alerts.models import DigestState
from tests.factories import make_paper, make_user
from tests.test_alerts_digest import save_search

MEMBERS = 20


def send() -> str:
    out = StringIO()
    call_command("send_digests", stdout=out, stderr=out)
    return out.getvalue()


def members_with_news() -> list:
    members = [make_user(f"member{i}") for i in range(MEMBERS)]
    for member in members:
        save_search(member, "Diffusion", "q=diffusion")
    make_paper("Latent diffusion for audio")
    return members


def mailed_to() -> list[str]:
    return sorted(address for message in mail.outbox for address in message.to)


@pytest.mark.django_db
def test_a_run_started_while_another_is_sending_mails_nobody_twice(monkeypatch):
    members = members_with_news()
    real_send = EmailMultiAlternatives.send
    second_run: list[str] = []
    started = False

    def send_and_let_a_second_run_start(message, *args, **kwargs):
        # The first run is sending its first member's digest when a second server's run
        # starts and goes through every member.
        nonlocal started
        if not started:
            started = True
            second_run.append(send())
        return real_send(message, *args, **kwargs)

    monkeypatch.setattr(EmailMultiAlternatives, "send", send_and_let_a_second_run_start)
    first_run = send()

    assert mailed_to() == sorted(member.email for member in members)
    assert "send_digests is already running (another server): skipped." in second_run[0]
    assert f"{MEMBERS} digests sent." in first_run
    assert not DigestState.objects.filter(held_until__isnull=False).exists()


@pytest.mark.django_db
def test_a_member_whose_digest_another_run_holds_is_skipped():
    """Each member's digest is claimed too: a run that outlived the job's hold, or a
    manual `--user` run beside the daily one, cannot mail a member twice."""
    members = members_with_news()
    assert digest.claim(members[0], timezone.now()) is not None  # held by another run
    out = send()
    assert "member0: skipped, another run is sending it" in out
    assert f"{MEMBERS - 1} digests sent." in out and members[0].email not in mailed_to()


@pytest.mark.django_db(transaction=True)
def test_two_runs_in_two_threads_mail_every_member_once(monkeypatch):
    """Real concurrency, one connection per run, as two servers have. PostgreSQL only: the
    SQLite test database lives in memory, where two connections lock whole tables."""
    if connection.vendor != "postgresql":
        pytest.skip("needs a database server that two connections share")
    members = members_with_news()
    real_send = EmailMultiAlternatives.send
    lock = threading.Lock()

    def slow_send(message, *args, **kwargs):
        threading.Event().wait(0.01)  # both runs are inside the loop at once
        with lock:
            return real_send(message, *args, **kwargs)

    monkeypatch.setattr(EmailMultiAlternatives, "send", slow_send)
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            start.wait()
            send()
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert mailed_to() == sorted(member.email for member in members)


@pytest.mark.django_db
def test_a_failed_mail_is_logged_the_others_are_sent_and_it_is_retried(monkeypatch, caplog):
    members = members_with_news()
    real_send = EmailMultiAlternatives.send

    def refuse_member3(message, *args, **kwargs):
        if message.to == [members[3].email]:
            raise ConnectionRefusedError("SMTP server went away")
        return real_send(message, *args, **kwargs)

    monkeypatch.setattr(EmailMultiAlternatives, "send", refuse_member3)
    with pytest.raises(CommandError, match="1 digest could not be sent"):
        send()
    assert len(mail.outbox) == MEMBERS - 1 and members[3].email not in mailed_to()
    assert "digest for member3 failed" in caplog.text and "SMTP server went away" in caplog.text

    monkeypatch.setattr(EmailMultiAlternatives, "send", real_send)
    assert "1 digest sent." in send()  # the next run mails what member3 missed, and only that
    assert mail.outbox[-1].to == [members[3].email]
    assert "Latent diffusion for audio" in mail.outbox[-1].body


@pytest.mark.django_db
def test_a_claim_left_by_a_run_that_died_is_taken_over_once_it_expires():
    member = members_with_news()[0]
    now = timezone.now()
    assert digest.claim(member, now) is not None
    assert digest.claim(member, now) is None
    later = now + digest.CLAIM_FOR + timedelta(seconds=1)
    assert digest.claim(member, later) is not None
