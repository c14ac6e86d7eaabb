"""Error mail to the admins is limited (issue 43, finding 3): a flood of one error is one mail,
and the next mail of its kind, in a later window, says how many were not sent. Kinds are told
apart by exception type and traceback, never by what the client sent; the claim is shared by
every worker through the database cache, and holds when that cache is down."""

from __future__ import annotations

import threading

import pytest
from django.core import mail
from django.db import OperationalError, connection
from django.test import Client
from django.urls import path

from config import error_mail

WINDOW = 600
START = 1_000_000 * WINDOW  # the start of a window of the clock


def fails(request, n: int):
    raise RuntimeError(f"the view broke on {n}")


def fails_otherwise(request):
    return {}["missing"]


urlpatterns = [path("boom/<int:n>/", fails), path("other/", fails_otherwise)]


@pytest.fixture(autouse=True)
def _mailed_errors(settings, monkeypatch):
    settings.ROOT_URLCONF = "tests.test_error_mail_limit"
    settings.DEBUG = False
    settings.ADMINS = [("Ops", "ops@lab.example")]
    settings.ERROR_MAIL_WINDOW_SECONDS = WINDOW
    monkeypatch.setattr(error_mail, "clock", lambda: START)
    error_mail.reset_local()
    yield
    error_mail.reset_local()


def get(url: str, **headers):
    return Client(raise_request_exception=False).get(url, headers=headers)


def later(monkeypatch, seconds: int) -> None:
    monkeypatch.setattr(error_mail, "clock", lambda: START + seconds)


@pytest.mark.django_db
def test_fifty_identical_errors_are_one_mail_then_one_saying_49_more(monkeypatch):
    # Fifty addresses and messages: the same failure reached the same way.
    for n in range(50):
        assert get(f"/boom/{n}/").status_code == 500
    (first,) = mail.outbox
    assert "RuntimeError" in first.body and "the view broke on 0" in first.body
    assert "mailed at most once every 600 seconds" in first.body

    later(monkeypatch, WINDOW)
    get("/boom/50/")
    second = mail.outbox[1]
    assert "[49 more not mailed] Internal Server Error: /boom/50/" in second.subject
    assert "49 more errors of this kind were not mailed since its last mail." in second.body

    later(monkeypatch, 2 * WINDOW)
    get("/boom/51/")
    assert "more not mailed" not in mail.outbox[2].subject  # counted once, then afresh


@pytest.mark.django_db
def test_a_window_is_a_stretch_of_the_clock(monkeypatch):
    get("/boom/1/")
    later(monkeypatch, WINDOW - 1)
    get("/boom/2/")
    assert len(mail.outbox) == 1

    later(monkeypatch, WINDOW)
    get("/boom/3/")
    assert len(mail.outbox) == 2
    assert "[1 more not mailed]" in mail.outbox[1].subject


@pytest.mark.django_db
def test_two_different_errors_are_two_mails(monkeypatch):
    for n in range(10):
        get(f"/boom/{n}/")
        get("/other/")

    assert len(mail.outbox) == 2
    assert {"RuntimeError" in m.body for m in mail.outbox} == {True, False}
    assert any("KeyError" in m.body for m in mail.outbox)


@pytest.mark.django_db
def test_a_flood_of_bad_host_headers_is_one_mail():
    # django.security.DisallowedHost is an error Django mails: one per request, before.
    for n in range(20):
        assert get("/boom/1/", Host=f"evil-{n}.example").status_code == 400

    (only,) = mail.outbox
    assert "Invalid HTTP_HOST header" in only.subject


@pytest.mark.django_db
def test_without_the_shared_cache_each_process_still_mails_once_per_window(monkeypatch):
    class Down:
        def __getattr__(self, name):
            def fail(*args, **kwargs):
                raise OperationalError("the database is down")

            return fail

    monkeypatch.setattr(error_mail, "cache", Down())
    for n in range(20):
        get(f"/boom/{n}/")
    assert len(mail.outbox) == 1

    later(monkeypatch, WINDOW)
    get("/boom/20/")
    assert "[19 more not mailed]" in mail.outbox[1].subject


@pytest.mark.django_db
def test_nothing_is_claimed_or_counted_without_admins(settings, django_assert_num_queries):
    settings.ADMINS = []
    with django_assert_num_queries(0):
        get("/boom/1/")
    assert mail.outbox == []


@pytest.mark.django_db(transaction=True)
def test_workers_failing_at_once_send_one_mail_between_them():
    """Eight threads, each with its own database connection, as eight workers."""
    barrier = threading.Barrier(8)
    statuses: list[int] = []

    def worker(n: int) -> None:
        try:
            barrier.wait()
            statuses.append(get(f"/boom/{n}/").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert statuses == [500] * 8
    assert len(mail.outbox) == 1
