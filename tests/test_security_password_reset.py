"""Password-reset throttles: one address is mailed at most PER_ADDRESS times and one client may
ask at most PER_CLIENT times per window, without revealing whether an address has an account."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotations import throttle
from tests.factories import make_user

PER_ADDRESS = 2
PER_CLIENT = 4
ADDRESS_DONE = "/accounts/password_reset/done/"


@pytest.fixture(autouse=True)
def _small_limits(settings):
    settings.PASSWORD_RESET_PER_ADDRESS = PER_ADDRESS
    settings.PASSWORD_RESET_PER_CLIENT = PER_CLIENT


def _ask(email: str, address: str = "192.0.2.10"):
    return Client(REMOTE_ADDR=address).post(reverse("password_reset"), {"email": email})


def _ask_from_new_clients(email: str, times: int) -> list:
    return [_ask(email, f"198.51.100.{index}") for index in range(times)]


def _end_the_window() -> None:
    # The database cache keeps each slot's expiry in its table, as axes keeps attempt times.
    table = connection.ops.quote_name(django_settings.CACHES["default"]["LOCATION"])
    past = connection.ops.adapt_datetimefield_value(timezone.now() - timedelta(seconds=1))
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET expires = %s", [past])  # noqa: S608


def test_one_address_is_mailed_at_most_its_limit_whoever_asks(user):
    responses = _ask_from_new_clients(user.email, PER_ADDRESS + 3)
    assert len(mail.outbox) == PER_ADDRESS
    assert {(r.status_code, r["Location"]) for r in responses} == {(302, ADDRESS_DONE)}


def test_letter_case_does_not_make_another_address(user):
    _ask_from_new_clients(user.email, PER_ADDRESS)
    _ask(user.email.upper(), "203.0.113.50")
    assert len(mail.outbox) == PER_ADDRESS


def test_a_throttled_address_answers_as_an_unknown_one_does(user):
    _ask_from_new_clients(user.email, PER_ADDRESS)
    _ask_from_new_clients("nobody@example.org", PER_ADDRESS)
    throttled_known = _ask(user.email, "203.0.113.50")
    throttled_unknown = _ask("nobody@example.org", "203.0.113.51")
    fresh_unknown = _ask("someone-else@example.org", "203.0.113.52")
    answers = {
        (r.status_code, r["Location"]) for r in (throttled_known, throttled_unknown, fresh_unknown)
    }
    assert answers == {(302, ADDRESS_DONE)}
    assert len(mail.outbox) == PER_ADDRESS


def test_one_address_is_mailed_again_once_the_window_has_passed(user):
    _ask_from_new_clients(user.email, PER_ADDRESS + 1)
    _end_the_window()
    _ask(user.email, "203.0.113.50")
    assert len(mail.outbox) == PER_ADDRESS + 1


def test_a_client_past_its_limit_is_told_to_try_later_and_nothing_is_mailed(db):
    members = [make_user(f"member{index}") for index in range(PER_CLIENT + 1)]
    answers = [_ask(member.email, "203.0.113.9") for member in members]
    assert [r.status_code for r in answers] == [302] * PER_CLIENT + [429]
    assert "Too many requests" in answers[-1].content.decode()
    assert len(mail.outbox) == PER_CLIENT


def test_a_client_past_its_limit_does_not_stop_another_client(user):
    for index in range(PER_CLIENT):
        _ask(f"nobody{index}@example.org", "203.0.113.9")
    assert _ask(user.email, "203.0.113.9").status_code == 429
    assert _ask(user.email, "198.51.100.7").status_code == 302
    assert [message.to for message in mail.outbox] == [[user.email]]


def test_a_form_error_is_not_counted_against_the_client(user):
    for _ in range(PER_CLIENT + 1):
        assert _ask("not an address", "203.0.113.9").status_code == 200
    assert _ask(user.email, "203.0.113.9").status_code == 302
    assert len(mail.outbox) == 1


def test_an_ipv6_client_is_counted_by_its_64_network(user):
    for index in range(PER_CLIENT):
        _ask(f"nobody{index}@example.org", f"2001:db8:0:1::{index + 1}")
    assert _ask(user.email, "2001:db8:0:1:ffff::1").status_code == 429
    assert _ask(user.email, "2001:db8:0:2::1").status_code == 302


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("192.0.2.10", "192.0.2.10"),
        ("2001:db8:0:1:2:3:4:5", "2001:db8:0:1::/64"),
        (None, "unknown"),
    ],
)
def test_client_key(address, key):
    assert throttle.client_key(address) == key


def test_allow_counts_each_key_on_its_own(db):
    assert [throttle.allow("test", "a", limit=2, window=60) for _ in range(3)] == [
        True,
        True,
        False,
    ]
    assert throttle.allow("test", "b", limit=2, window=60)
    assert throttle.allow("other-scope", "a", limit=2, window=60)
