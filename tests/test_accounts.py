"""Accounts: log in and out, password change and reset, optional sign-up, REQUIRE_LOGIN."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from annotations.models import Visibility
from tests.factories import PASSWORD, make_comment, make_note, make_paper, make_reading_list

LOGIN_REQUIRED = "django.contrib.auth.middleware.LoginRequiredMiddleware"


def test_login_page_and_login(client, user):
    page = client.get(reverse("login"))
    assert page.status_code == 200
    assert "Forgotten your password?" in page.content.decode()
    response = client.post(
        reverse("login"), {"username": "alice", "password": PASSWORD, "next": "/notes/"}
    )
    assert response.status_code == 302 and response["Location"] == "/notes/"


def test_wrong_password_is_a_form_error(client, user):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()


def test_logout_is_post_only(client, user):
    client.force_login(user)
    assert client.get(reverse("logout")).status_code == 405
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert client.get(reverse("annotations:notes")).status_code == 302


def test_logging_out_says_so_on_the_page_the_member_lands_on(client, user):
    client.force_login(user)
    response = client.post(reverse("logout"), follow=True)
    assert response.redirect_chain == [(reverse("papers:list"), 302)]
    content = response.content.decode()
    assert '<li class="message success">You have logged out.</li>' in content
    # Said once: the next page has no message left.
    assert "You have logged out." not in client.get(reverse("papers:list")).content.decode()


def test_password_change(client, user):
    client.force_login(user)
    assert client.get(reverse("password_change")).status_code == 200
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "a-much-newer-passphrase",
            "new_password2": "a-much-newer-passphrase",
        },
        follow=True,
    )
    assert "Password changed" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password("a-much-newer-passphrase")


def test_password_reset_by_email(client, user):
    assert client.get(reverse("password_reset")).status_code == 200
    response = client.post(reverse("password_reset"), {"email": user.email}, follow=True)
    assert "Check your e-mail" in response.content.decode()
    [message] = mail.outbox
    assert message.to == [user.email]
    assert "\n" not in message.subject
    link = re.search(r"https?://[^/]+(/accounts/reset/\S+/)", message.body).group(1)
    form_page = client.get(link, follow=True)
    assert "Choose a new password" in form_page.content.decode()
    done = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": "reset-passphrase-42", "new_password2": "reset-passphrase-42"},
        follow=True,
    )
    assert "Your new password is set." in done.content.decode()
    user.refresh_from_db()
    assert user.check_password("reset-passphrase-42")


def test_password_reset_link_comes_from_site_url_not_the_host_header(client, user, settings):
    settings.SITE_URL = "https://papers.example.org"
    settings.ALLOWED_HOSTS = ["papers.example.org", "127.0.0.1"]
    client.post(
        reverse("password_reset"),
        {"email": user.email},
        HTTP_HOST="127.0.0.1:6666",
    )
    [message] = mail.outbox
    assert "https://papers.example.org/accounts/reset/" in message.body
    assert "6666" not in message.body
    assert settings.SITE_NAME in message.subject


def test_password_reset_for_unknown_address_reveals_nothing(client, db):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.org"}, follow=True)
    assert "Check your e-mail" in response.content.decode()
    assert mail.outbox == []


def test_signup_is_404_unless_allowed(client, db, settings):
    settings.ALLOW_SIGNUP = False
    assert client.get(reverse("signup")).status_code == 404
    assert client.post(reverse("signup"), {"username": "eve"}).status_code == 404
    assert "Sign up" not in client.get(reverse("login")).content.decode()


def test_signup_creates_account_and_logs_in(client, db, settings):
    settings.ALLOW_SIGNUP = True
    assert "Sign up" in client.get(reverse("papers:list")).content.decode()
    response = client.post(
        reverse("signup"),
        {
            "username": "newcomer",
            "email": "newcomer@example.org",
            "password1": "fresh-passphrase-77",
            "password2": "fresh-passphrase-77",
        },
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="newcomer").exists()
    assert client.get(reverse("annotations:notes")).status_code == 200


def test_signup_with_taken_username_is_a_form_error(client, user, settings):
    settings.ALLOW_SIGNUP = True
    response = client.post(
        reverse("signup"),
        {
            "username": "alice",
            "email": "x@example.org",
            "password1": "fresh-passphrase-77",
            "password2": "fresh-passphrase-77",
        },
    )
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert get_user_model().objects.count() == 1


@pytest.fixture
def login_required_site(settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, LOGIN_REQUIRED]


def _every_page(user) -> list[str]:
    paper = make_paper(authors=["Ada Lovelace"], tags=[("ICLR 2024", "venue")])
    note = make_note(user, paper)
    comment = make_comment(user, paper)
    shared = make_reading_list(user, "Shared", papers=[paper], visibility=Visibility.SHARED)
    author = paper.authors.get()
    tag = paper.tags.get()
    return [
        reverse("papers:list"),
        paper.get_absolute_url(),
        author.get_absolute_url(),
        tag.get_absolute_url(),
        reverse("annotations:notes"),
        reverse("annotations:note-edit", args=[note.pk]),
        reverse("annotations:comment-edit", args=[comment.pk]),
        reverse("annotations:lists"),
        reverse("annotations:lists-shared"),
        shared.get_absolute_url(),
        reverse("annotations:list-export-bibtex", args=[shared.pk]),
        reverse("annotations:list-export-csv", args=[shared.pk]),
        reverse("annotations:activity"),
        reverse("password_change"),
    ]


def test_require_login_sends_anonymous_users_to_login_on_every_page(
    client, user, login_required_site
):
    for url in _every_page(user):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login") + "?next="), url


def test_require_login_keeps_login_and_reset_pages_reachable(
    client, db, login_required_site, settings
):
    settings.ALLOW_SIGNUP = True
    for url in [
        reverse("login"),
        reverse("password_reset"),
        reverse("password_reset_done"),
        reverse("signup"),
    ]:
        assert client.get(url).status_code == 200, url


def test_require_login_lets_members_in(client, user, login_required_site):
    client.force_login(user)
    for url in _every_page(user):
        assert client.get(url).status_code == 200, url


def test_account_pages_have_no_inline_scripts(client, db, settings):
    settings.ALLOW_SIGNUP = True
    for url in [reverse("login"), reverse("password_reset"), reverse("signup")]:
        content = client.get(url).content.decode()
        assert "<script>" not in content and " onclick=" not in content


# A member whose session ended (logged out in another tab, or it expired) acts on a page
# still open: htmx must not follow the login redirect and swap the login page into the
# section, losing what they typed; it gets a 401 the page explains, the text left in place.


def test_an_htmx_action_after_the_session_ended_is_a_401_not_the_login_page(client, db):
    paper = make_paper()
    url = reverse("annotations:note-add", args=[paper.pk])
    response = client.post(url, {"body": "typed for ten minutes"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 401
    assert "<html" not in response.content.decode()
    # Without htmx the form still goes to the login page, as before.
    plain = client.post(url, {"body": "typed"})
    assert plain.status_code == 302 and plain["Location"].startswith(reverse("login"))


def test_a_plain_form_post_after_the_session_ended_logs_in_back_to_the_form_page(client, db):
    # Without JavaScript: the action is POST-only, so "next" must not be its URL (after
    # logging in, the member would land on a 405), but the page the form was on.
    paper = make_paper()
    url = reverse("annotations:comment-add", args=[paper.pk])
    page = f"http://testserver{paper.get_absolute_url()}?from=list"
    response = client.post(url, {"body": "typed"}, HTTP_REFERER=page)
    assert response.status_code == 302
    login = response["Location"]
    assert login.startswith(reverse("login"))
    next_page = parse_qs(urlsplit(login).query)["next"]
    assert next_page == [f"{paper.get_absolute_url()}?from=list"]
    shown = client.get(login).content.decode()
    assert "You were logged out, so that was not saved" in shown


def test_a_post_after_the_session_ended_from_another_site_logs_in_to_the_home_page(client, db):
    paper = make_paper()
    url = reverse("annotations:note-add", args=[paper.pk])
    response = client.post(url, {"body": "x"}, HTTP_REFERER="https://evil.example/page")
    assert response["Location"] == reverse("login")


@pytest.mark.parametrize("username", ["\u3164", "\u1160\u1160"])
def test_signup_refuses_a_username_that_shows_nothing(client, db, settings, username):
    # Hangul fillers are letters to Django's username validator but render as blank space.
    settings.ALLOW_SIGNUP = True
    response = client.post(
        reverse("signup"),
        {
            "username": username,
            "email": "x@example.org",
            "password1": "fresh-passphrase-77",
            "password2": "fresh-passphrase-77",
        },
    )
    assert response.status_code == 200
    assert "A username needs at least one visible character." in response.content.decode()
    assert not get_user_model().objects.exists()
