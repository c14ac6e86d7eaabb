"""Login lockouts (django-axes), exercised through the real login forms and the admin.

After LIMIT failed logins for one username from one client address, logging in with that
username from that address is refused until the cool-off has passed or a curator deletes the
lockout in admin. The member logging in from another address is not refused.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import Permission
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from config.proxies import client_address
from tests.factories import PASSWORD, make_user

LIMIT = 3
COOL_OFF = timedelta(seconds=900)
LOCKED = "Too many failed login attempts"
WRONG = "Please enter a correct username and password"


@pytest.fixture(autouse=True)
def _small_limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.AXES_COOLOFF_TIME = COOL_OFF


def _client(address: str = "192.0.2.10") -> Client:
    return Client(REMOTE_ADDR=address)


def _log_in(client: Client, username: str, password: str, url: str | None = None, **extra):
    data = {"username": username, "password": password}
    return client.post(url or reverse("login"), data, **extra)


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def _fail(client: Client, username: str, times: int, **extra) -> None:
    for _ in range(times):
        response = _log_in(client, username, "wrong password", **extra)
        assert response.status_code == 200
        assert not _logged_in(client)


def _assert_locked_out(response, client: Client) -> None:
    assert response.status_code == 200
    assert LOCKED in response.content.decode()
    assert not _logged_in(client)


def test_right_password_logs_in(user):
    client = _client()
    assert _log_in(client, "alice", PASSWORD).status_code == 302
    assert _logged_in(client)


def test_failures_below_the_limit_do_not_block(user):
    client = _client()
    _fail(client, "alice", LIMIT - 1)
    assert _log_in(client, "alice", PASSWORD).status_code == 302


def test_the_failure_that_reaches_the_limit_says_so(user):
    client = _client()
    _fail(client, "alice", LIMIT - 1)
    response = _log_in(client, "alice", "wrong password")
    _assert_locked_out(response, client)
    assert response.context["form"].errors.as_data()["__all__"][0].code == "throttled"


def test_after_too_many_failures_even_the_right_password_is_refused(user):
    client = _client()
    _fail(client, "alice", LIMIT)
    response = _log_in(client, "alice", PASSWORD)
    _assert_locked_out(response, client)
    assert WRONG not in response.content.decode()
    assert response.context["form"].errors.as_data()["__all__"][0].code == "throttled"


def test_a_lockout_from_one_address_does_not_lock_the_member_out_from_another(user):
    attacker = _client("203.0.113.9")
    _fail(attacker, "alice", LIMIT)
    member = _client("198.51.100.7")
    assert _log_in(member, "alice", PASSWORD).status_code == 302
    assert _logged_in(member)


def test_a_lockout_still_holds_for_the_guessers_address_and_username(user):
    attacker = _client("203.0.113.9")
    _fail(attacker, "alice", LIMIT)
    assert _log_in(_client("198.51.100.7"), "alice", PASSWORD).status_code == 302
    _assert_locked_out(_log_in(attacker, "alice", PASSWORD), attacker)


def test_username_lockout_ignores_letter_case(user):
    client = _client("192.0.2.10")
    _fail(client, "ALICE", LIMIT)
    _assert_locked_out(_log_in(client, "alice", PASSWORD), client)


def test_lockout_message_does_not_reveal_whether_the_user_exists(user):
    _fail(_client("192.0.2.10"), "alice", LIMIT)
    _fail(_client("192.0.2.11"), "nobody-by-this-name", LIMIT)
    existing = _log_in(_client("192.0.2.10"), "alice", "wrong password")
    missing = _log_in(_client("192.0.2.11"), "nobody-by-this-name", "x")
    assert existing.context["form"].errors == missing.context["form"].errors
    assert LOCKED in existing.content.decode()


def test_failures_are_counted_per_username_from_an_address(user):
    # Each username's count from one address is its own: guesses at other names (or names
    # that do not exist) neither lock this one nor say whether they exist.
    client = _client("203.0.113.9")
    for index in range(LIMIT):
        _fail(client, f"guess{index}", 1)
    assert _log_in(client, "alice", PASSWORD).status_code == 302


def test_successful_login_resets_its_addresss_count_for_the_username(user):
    client = _client("192.0.2.10")
    _fail(client, "alice", LIMIT - 1)
    assert _log_in(client, "alice", PASSWORD).status_code == 302
    client.logout()
    _fail(client, "alice", LIMIT - 1)
    assert _log_in(client, "alice", PASSWORD).status_code == 302


def test_the_member_logging_in_elsewhere_does_not_lift_a_guessers_lockout(user):
    attacker = _client("203.0.113.9")
    _fail(attacker, "alice", LIMIT)
    assert _log_in(_client("198.51.100.7"), "alice", PASSWORD).status_code == 302
    assert AccessAttempt.objects.get().ip_address == "203.0.113.9"
    _assert_locked_out(_log_in(attacker, "alice", PASSWORD), attacker)


def test_attempts_during_a_lockout_do_not_prolong_it(user):
    client = _client()
    _fail(client, "alice", LIMIT)
    locked_since = AccessAttempt.objects.get().attempt_time
    _log_in(client, "alice", "wrong again")
    attempt = AccessAttempt.objects.get()
    assert attempt.attempt_time == locked_since
    assert attempt.failures_since_start == LIMIT


def _age_attempts(by: timedelta) -> None:
    AccessAttempt.objects.update(attempt_time=timezone.now() - by)


def test_lockout_holds_until_the_cool_off_has_passed(user):
    client = _client()
    _fail(client, "alice", LIMIT)
    _age_attempts(COOL_OFF - timedelta(seconds=30))
    _assert_locked_out(_log_in(client, "alice", PASSWORD), client)
    _age_attempts(COOL_OFF + timedelta(seconds=1))
    assert _log_in(client, "alice", PASSWORD).status_code == 302


def test_blank_form_is_not_counted_as_a_failure(user):
    client = _client()
    for _ in range(LIMIT):
        response = client.post(reverse("login"), {"username": "alice", "password": ""})
        assert response.status_code == 200
    assert not AccessAttempt.objects.exists()
    assert _log_in(client, "alice", PASSWORD).status_code == 302


@pytest.mark.parametrize("url_name", ["login", "admin:login"])
@pytest.mark.parametrize("password", [None, ""])
def test_a_form_without_a_password_does_not_clear_a_lockout(user, url_name, password):
    # The form's clean() runs without authenticating when the password is missing: that must
    # not count as a successful login, or anyone could lift a lockout between guesses.
    make_user("root", is_staff=True, is_superuser=True)
    attacker = _client("203.0.113.9")
    _fail(attacker, "alice", LIMIT)
    data = {"username": "alice"} if password is None else {"username": "alice", "password": ""}
    attacker.post(reverse(url_name), data)
    assert AccessAttempt.objects.get().failures_since_start == LIMIT
    _assert_locked_out(_log_in(attacker, "alice", PASSWORD), attacker)


def test_admin_login_is_locked_out_too(db):
    make_user("root", is_staff=True, is_superuser=True)
    client = _client()
    url = reverse("admin:login")
    for _ in range(LIMIT):
        _log_in(client, "root", "wrong", url=url)
    _assert_locked_out(_log_in(client, "root", PASSWORD, url=url), client)


def test_a_username_longer_once_casefolded_is_counted_not_crashed(db):
    # "ß" casefolds to "ss": 150 of them become 300 characters, over axes' 255.
    client = _client()
    name = "ß" * 150
    _fail(client, name, LIMIT - 1)
    _assert_locked_out(_log_in(client, name, "wrong"), client)
    assert AccessAttempt.objects.get().username == "s" * 255


# --- curators see lockouts in admin and remove them -----------------------------------


@pytest.fixture
def curator(db) -> Client:
    user = make_user("curator", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="axes",
            codename__in=["view_accessattempt", "delete_accessattempt"],
        )
    )
    client = Client()
    client.force_login(user)
    return client


def test_a_curator_sees_a_lockout_in_admin(curator, user):
    _fail(_client("192.0.2.10"), "alice", LIMIT)
    changelist = reverse("admin:axes_accessattempt_changelist")
    page = curator.get(changelist, {"q": "alice"})
    assert page.status_code == 200
    content = page.content.decode()
    assert "192.0.2.10" in content
    assert "Locked Out" in content
    assert changelist in curator.get(reverse("admin:index")).content.decode()


def test_a_curator_removes_a_lockout_and_the_member_can_log_in_again(curator, user):
    member = _client("192.0.2.10")
    _fail(member, "alice", LIMIT)
    _assert_locked_out(_log_in(member, "alice", PASSWORD), member)
    selected = list(AccessAttempt.objects.filter(username="alice").values_list("pk", flat=True))
    assert selected
    response = curator.post(
        reverse("admin:axes_accessattempt_changelist"),
        {"action": "delete_selected", "_selected_action": selected, "post": "yes"},
    )
    assert response.status_code == 302
    assert not AccessAttempt.objects.filter(username="alice").exists()
    assert _log_in(member, "alice", PASSWORD).status_code == 302
    assert _logged_in(member)


def test_staff_without_the_axes_permissions_cannot_see_lockouts(db):
    staff = Client()
    staff.force_login(make_user("helper", is_staff=True))
    response = staff.get(reverse("admin:axes_accessattempt_changelist"))
    assert response.status_code == 403


# --- which address a failure is counted under ---------------------------------------------


@pytest.mark.parametrize(
    ("behind_proxy", "trusted", "peer", "forwarded", "expected"),
    [
        pytest.param(
            False, ["10.0.0.0/8"], "10.0.0.2", "6.6.6.6, 198.51.100.7", "10.0.0.2",
            id="without-DJANGO_BEHIND_PROXY-the-header-is-never-read",
        ),
        pytest.param(
            True, ["10.0.0.0/8"], "10.0.0.2", "6.6.6.6, 198.51.100.7", "198.51.100.7",
            id="only-the-hop-our-proxy-appended-counts-not-the-forgeable-left",
        ),
        pytest.param(
            True, ["127.0.0.1", "::1"], "203.0.113.9", "198.51.100.7", "203.0.113.9",
            id="a-peer-that-is-not-our-proxy-is-taken-at-its-socket-address",
        ),
        pytest.param(
            True, ["127.0.0.1", "10.1.0.0/16"], "127.0.0.1", "6.6.6.6, 198.51.100.7, 10.1.2.3",
            "198.51.100.7",
            id="chained-trusted-proxies-are-skipped",
        ),
        pytest.param(
            True, ["127.0.0.1", "10.1.0.0/16"], "127.0.0.1", "198.51.100.7, 10.100.2.3",
            "10.100.2.3",
            id="trusted-networks-are-networks-not-text-prefixes",
        ),
        pytest.param(
            True, ["127.0.0.1"], "127.0.0.1", "unknown", None,
            id="a-hop-that-is-not-an-address-counts-as-no-address",
        ),
        pytest.param(
            True, ["127.0.0.1"], "127.0.0.1", "", "127.0.0.1",
            id="our-proxy-without-the-header-is-the-client",
        ),
        pytest.param(
            True, ["127.0.0.1", "::1"], "127.0.0.1", "2001:DB8:0::1", "2001:db8::1",
            id="addresses-are-spelt-one-way",
        ),
        pytest.param(
            True, ["127.0.0.1"], "127.0.0.1", "6.6.6.6, 198.51.100.7:443", "198.51.100.7",
            id="a-port-our-proxy-appended-is-not-part-of-the-address",
        ),
        pytest.param(
            True, ["127.0.0.1"], "127.0.0.1", "[2001:db8::1]:443", "2001:db8::1",
            id="an-ipv6-address-with-its-port",
        ),
    ],
)  # fmt: skip
def test_client_address(settings, behind_proxy, trusted, peer, forwarded, expected):
    settings.BEHIND_PROXY = behind_proxy
    settings.FORWARDED_ALLOW_IPS = trusted
    request = RequestFactory().get("/", REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=forwarded)
    assert client_address(request) == expected


@pytest.fixture
def behind_our_proxy(settings):
    settings.BEHIND_PROXY = True
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.0/8"]


def test_behind_a_trusted_proxy_failures_count_for_the_forwarded_address(user, behind_our_proxy):
    proxy = _client("10.0.0.2")
    for index in range(LIMIT):
        # The client forges a different left-most entry each time; our proxy's hop stays.
        forwarded = f"6.6.6.{index}, 198.51.100.7"
        _fail(proxy, "alice", 1, HTTP_X_FORWARDED_FOR=forwarded)
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.7"}
    locked = _log_in(proxy, "alice", PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.7")
    _assert_locked_out(locked, proxy)
    # Another client behind the same proxy is not locked out with it.
    neighbour = _client("10.0.0.2")
    allowed = _log_in(neighbour, "alice", PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.8")
    assert allowed.status_code == 302


def test_a_direct_client_rotating_x_forwarded_for_is_still_locked_out(user, behind_our_proxy):
    client = _client("203.0.113.9")
    for attempt in range(LIMIT):
        forwarded = f"192.0.2.{attempt}"
        _fail(client, "alice", 1, HTTP_X_FORWARDED_FOR=forwarded)
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.9"}
    response = _log_in(client, "alice", PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.200")
    _assert_locked_out(response, client)
