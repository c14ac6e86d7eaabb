"""Login throttling, exercised through the real login form."""

from __future__ import annotations

import time

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from config import throttle
from tests.factories import PASSWORD, make_user

LIMIT = 3
LOCKED = "Too many failed login attempts"


@pytest.fixture(autouse=True)
def _small_limit(settings):
    settings.LOGIN_MAX_FAILURES = LIMIT
    settings.LOGIN_LOCKOUT_SECONDS = 900


def _client(address: str = "192.0.2.10") -> Client:
    return Client(REMOTE_ADDR=address)


def _log_in(client: Client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password})


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def _fail(client: Client, username: str, times: int) -> None:
    for _ in range(times):
        response = _log_in(client, username, "wrong password")
        assert response.status_code == 200
        assert not _logged_in(client)


def test_right_password_logs_in(user):
    client = _client()
    response = _log_in(client, "alice", PASSWORD)
    assert response.status_code == 302
    assert _logged_in(client)


def test_failures_below_the_limit_do_not_block(user):
    client = _client()
    _fail(client, "alice", LIMIT - 1)
    assert _log_in(client, "alice", PASSWORD).status_code == 302


def test_after_too_many_failures_even_the_right_password_is_refused(user):
    client = _client()
    _fail(client, "alice", LIMIT)
    response = _log_in(client, "alice", PASSWORD)
    assert response.status_code == 200
    assert not _logged_in(client)
    assert LOCKED in response.content.decode()
    assert response.context["form"].errors.as_data()["__all__"][0].code == "throttled"


def test_username_lockout_holds_from_another_address(user):
    _fail(_client("192.0.2.10"), "alice", LIMIT)
    client = _client("198.51.100.7")
    assert LOCKED in _log_in(client, "alice", PASSWORD).content.decode()
    assert not _logged_in(client)


def test_username_lockout_ignores_letter_case(user):
    _fail(_client("192.0.2.10"), "ALICE", LIMIT)
    assert LOCKED in _log_in(_client("198.51.100.7"), "alice", PASSWORD).content.decode()


def test_lockout_message_does_not_reveal_whether_the_user_exists(user):
    _fail(_client("192.0.2.10"), "alice", LIMIT)
    _fail(_client("192.0.2.11"), "nobody-by-this-name", LIMIT)
    existing = _log_in(_client("192.0.2.10"), "alice", "wrong password").content.decode()
    missing = _log_in(_client("192.0.2.11"), "nobody-by-this-name", "x").content.decode()
    assert LOCKED in existing
    assert LOCKED in missing


def test_many_usernames_from_one_address_lock_that_address(user):
    attacker = _client("203.0.113.9")
    for index in range(LIMIT):
        _fail(attacker, f"guess{index}", 1)
    assert LOCKED in _log_in(attacker, "alice", PASSWORD).content.decode()
    assert not _logged_in(attacker)
    # The same account from elsewhere is unaffected: its own counter never reached the limit.
    elsewhere = _client("198.51.100.7")
    assert _log_in(elsewhere, "alice", PASSWORD).status_code == 302


def test_successful_login_resets_the_username_count(user):
    _fail(_client("192.0.2.10"), "alice", LIMIT - 1)
    assert _log_in(_client("192.0.2.11"), "alice", PASSWORD).status_code == 302
    _fail(_client("192.0.2.12"), "alice", LIMIT - 1)
    assert _log_in(_client("192.0.2.13"), "alice", PASSWORD).status_code == 302


def test_lockout_ends_when_the_window_passes(user, monkeypatch):
    client = _client()
    _fail(client, "alice", LIMIT)
    assert LOCKED in _log_in(client, "alice", PASSWORD).content.decode()
    later = time.time() + 901

    class _Later:
        @staticmethod
        def time() -> float:
            return later

    monkeypatch.setattr(throttle, "time", _Later)
    assert _log_in(client, "alice", PASSWORD).status_code == 302


def test_blank_form_is_not_counted_as_a_failure(user):
    client = _client()
    for _ in range(LIMIT):
        client.post(reverse("login"), {"username": "alice", "password": ""})
    assert _log_in(client, "alice", PASSWORD).status_code == 302


def test_admin_login_is_throttled_too(db):
    make_user("root", is_staff=True, is_superuser=True)
    client = _client()
    url = reverse("admin:login")
    for _ in range(LIMIT):
        client.post(url, {"username": "root", "password": "wrong"})
    response = client.post(url, {"username": "root", "password": PASSWORD})
    assert response.status_code == 200
    assert LOCKED in response.content.decode()
    assert not _logged_in(client)


def test_client_address_is_the_socket_peer_unless_behind_a_proxy(settings):
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.7"
    )
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.0/8"]
    settings.BEHIND_PROXY = False
    assert throttle.client_address(request) == "10.0.0.2"
    settings.BEHIND_PROXY = True
    # Only the hop our proxy appended counts; the client can forge anything to its left.
    assert throttle.client_address(request) == "198.51.100.7"


def test_forwarded_header_from_a_client_that_is_not_our_proxy_is_ignored(settings):
    settings.BEHIND_PROXY = True
    settings.FORWARDED_ALLOW_IPS = ["127.0.0.1", "::1"]
    request = RequestFactory().get(
        "/", REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="198.51.100.7"
    )
    assert throttle.client_address(request) == "203.0.113.9"


def test_chained_trusted_proxies_are_skipped_to_reach_the_client(settings):
    settings.BEHIND_PROXY = True
    settings.FORWARDED_ALLOW_IPS = ["127.0.0.1", "10.1.0.0/16"]
    request = RequestFactory().get(
        "/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.7, 10.1.2.3"
    )
    assert throttle.client_address(request) == "198.51.100.7"


def test_a_direct_client_rotating_x_forwarded_for_is_still_throttled(user, settings):
    settings.BEHIND_PROXY = True
    settings.FORWARDED_ALLOW_IPS = ["127.0.0.1", "::1"]
    client = Client(REMOTE_ADDR="203.0.113.9")
    url = reverse("login")
    for attempt in range(settings.LOGIN_MAX_FAILURES):
        client.post(
            url,
            {"username": f"nobody{attempt}", "password": "wrong"},
            HTTP_X_FORWARDED_FOR=f"192.0.2.{attempt}",
        )
    response = client.post(
        url, {"username": "alice", "password": PASSWORD}, HTTP_X_FORWARDED_FOR="192.0.2.200"
    )
    assert LOCKED in response.content.decode()
    assert not _logged_in(client)
