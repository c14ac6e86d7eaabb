"""Hostile request text: a NUL character anywhere in a request is a 200 or a 404, never a 500.

PostgreSQL refuses NUL in text, so before NulCharacterMiddleware a NUL reaching a query raised
a 500 there; SQLite accepted it. These tests run on both databases.
"""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.urls import reverse

from annotations.models import Comment, Note, ReadingList
from papers.models import Tag
from tests.factories import make_paper

NUL = "%00"

LIST_PARAMETERS = [
    "q",
    "author_q",
    "sort",
    "per_page",
    "page",
    "author",
    "tag",
    "track",
    "venue",
    "mine",
]


@pytest.fixture
def paper(db):
    return make_paper("Diffusion models", tags=[("ICLR 2024", "venue")])


@pytest.fixture
def member(client, user):
    client.force_login(user)
    return user


@pytest.mark.parametrize("name", LIST_PARAMETERS)
def test_nul_in_any_list_parameter_is_ignored(client, paper, member, name):
    response = client.get(f"/?{name}={NUL}")
    assert response.status_code == 200


def test_nul_inside_a_search_is_dropped_and_the_rest_searched(client, paper):
    response = client.get(f"/?q=diff{NUL}usion")
    assert response.status_code == 200
    assert "Diffusion models" in response.content.decode()


@pytest.mark.parametrize(
    "path",
    [
        f"/tags/venue/{NUL}/",
        f"/tags/{NUL}/x/",
        f"/tags/venue/iclr-2024{NUL}/",
        f"/papers/{NUL}/",
        f"/{NUL}",
        f"/admin/papers/paper/?q={NUL}x",
    ],
)
def test_nul_in_a_path_is_not_found(admin_client, paper, path):
    response = admin_client.get(path)
    # In a path nothing matches; in the admin's search box the NUL is dropped and the page shows.
    assert response.status_code == (200 if "?" in path else 404)


@pytest.mark.parametrize(
    "path",
    [
        f"/notes/?q={NUL}",
        f"/notes/?page={NUL}",
        f"/lists/?q={NUL}",
        f"/activity/?page={NUL}",
        f"/admin/papers/author/?q={NUL}",
        f"/admin/papers/paper/?q={NUL}&needs_curation__exact=1{NUL}",
    ],
)
def test_nul_in_member_and_admin_pages_is_ignored(admin_client, paper, path):
    assert admin_client.get(path).status_code == 200


def test_nul_as_an_admin_filter_value_is_the_admins_invalid_filter_redirect(admin_client, paper):
    response = admin_client.get(f"/admin/papers/paper/?needs_curation__exact={NUL}")
    assert response.status_code == 302
    assert response.url.endswith("?e=1")


def test_nul_in_a_note_is_dropped_and_the_note_kept(client, paper, member):
    response = client.post(
        reverse("annotations:note-add", args=[paper.pk]), {"body": "first\x00 thought"}
    )
    assert response.status_code == 302  # saved, back to the paper
    assert Note.objects.get(owner=member, paper=paper).body == "first thought"


def test_nul_in_every_annotation_form_never_fails(client, paper, member):
    # What is left once the NUL is dropped decides: an empty comment is a form error shown
    # again (200); a name is saved and the browser sent on (302).
    posts = [
        (reverse("annotations:comment-add", args=[paper.pk]), {"body": "\x00"}, 200),
        (reverse("annotations:tag-add", args=[paper.pk]), {"name": "rl\x00"}, 302),
        (
            reverse("annotations:list-create"),
            {"name": "\x00list", "visibility": "private"},
            302,
        ),
        # Nothing to add: back to the paper's lists section, with a message.
        (reverse("annotations:paper-list-add", args=[paper.pk]), {"new_list_name": "\x00"}, 302),
    ]
    for url, data, status in posts:
        assert client.post(url, data).status_code == status, url
    # Compared in Python: PostgreSQL would refuse the NUL in a lookup of our own.
    stored = [
        *Comment.objects.values_list("body", flat=True),
        *Tag.objects.values_list("name", flat=True),
        *ReadingList.objects.values_list("name", flat=True),
    ]
    assert stored
    assert not [text for text in stored if "\x00" in text]


def test_nul_in_a_login_form_is_an_ordinary_failed_login(client, user):
    response = client.post(reverse("login"), {"username": "alice\x00", "password": "\x00"})
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def test_nul_in_a_failed_login_never_reaches_the_lockout_record(client, user):
    response = client.post(
        reverse("login") + f"?next={NUL}", {"username": "alice\x00", "password": "x\x00"}
    )
    assert response.status_code == 200
    attempt = AccessAttempt.objects.get()
    assert attempt.username == "alice"
    assert "\x00" not in attempt.get_data + attempt.post_data


@pytest.mark.parametrize(
    "forwarded",
    ["unknown", "not an address, 198.51.100.7 extra", "1.2.3.4:99999", ", ,", "6.6.6.6, " * 1000],
)
def test_a_failed_login_with_any_forwarded_header_from_our_proxy_is_counted(
    client, user, settings, forwarded
):
    # Counted under no address when the proxy passed on text that is not one (one shared
    # count), never a 500: PostgreSQL's inet column refuses anything else.
    settings.BEHIND_PROXY = True
    settings.FORWARDED_ALLOW_IPS = ["127.0.0.1"]
    response = client.post(
        reverse("login"),
        {"username": "alice", "password": "wrong"},
        HTTP_X_FORWARDED_FOR=forwarded,
        REMOTE_ADDR="127.0.0.1",
    )
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert AccessAttempt.objects.get().failures_since_start == 1


def test_nul_in_the_session_cookie_reads_as_no_session(client, paper):
    # A quoted cookie value may spell NUL as an octal escape; the session lookup never sees it.
    client.cookies["sessionid"] = '"\\000\\000\\000\\000\\000\\000\\000\\000abc"'
    response = client.get("/")
    assert response.status_code == 200
    assert "Log in" in response.content.decode()
