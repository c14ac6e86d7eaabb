"""The JSON API's writes (api/, docs/api.md), each through the site's own service: list items
by paper id or by identifier (the queued fetch: 202, and no outbound request), reading status,
notes, lab tags, highlights. What a member may not change on a page answers 404 here too."""

from __future__ import annotations

import pytest
import respx

from annotations.models import ListAdditionByLink, MemberReading, Note
from highlights.models import Highlight
from papers.models import LinkFetch
from tests.api_helpers import post_json, token_client
from tests.factories import make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db

ARXIV_LINK = "https://arxiv.org/abs/2401.01234"


def test_add_by_id_and_by_identifier(user, other_user):
    paper = make_paper("A paper")
    mine = make_reading_list(user, "Mine")
    alice = token_client(user)
    added = post_json(alice, f"/api/v1/lists/{mine.pk}/items", {"paper": paper.pk})
    assert added.status_code == 201 and added.json()["paper"] == paper.pk
    again = post_json(alice, f"/api/v1/lists/{mine.pk}/items", {"paper": paper.pk})
    assert again.status_code == 409

    # A paper not yet here: its fetch is queued for the task worker, nothing asked outside.
    with respx.mock(assert_all_called=False) as outside:
        queued = post_json(alice, f"/api/v1/lists/{mine.pk}/items", {"identifier": ARXIV_LINK})
    assert outside.calls.call_count == 0
    assert queued.status_code == 202
    fetch = LinkFetch.objects.get(requested_by=user)
    assert fetch.value == "2401.01234" and fetch.status == LinkFetch.Status.QUEUED
    assert ListAdditionByLink.objects.get(link_fetch=fetch).reading_list == mine
    status = alice.get(queued.json()["status_url"])
    assert status.status_code == 200 and status.json()["status"] == "queued"
    # Another member does not read Alice's request.
    assert token_client(other_user).get(queued.json()["status_url"]).status_code == 404


def test_another_members_private_list_is_not_writable(user, other_user):
    paper = make_paper("A paper")
    private = make_reading_list(other_user, "Bob's private list")
    shared = make_reading_list(other_user, "Bob's shared list", visibility="shared")
    lab_edit = make_reading_list(other_user, "Bob's lab list", visibility="lab_edit")
    alice = token_client(user)
    for reading_list, expected in [(private, 404), (shared, 404), (lab_edit, 201)]:
        url = f"/api/v1/lists/{reading_list.pk}/items"
        assert post_json(alice, url, {"paper": paper.pk}).status_code == expected, reading_list


def test_reading_status_note_tag_highlight(user, other_user):
    paper = make_paper("A paper")
    mine = make_reading_list(user, "Mine", papers=[paper])
    shared = make_reading_list(other_user, "Bob's", papers=[paper], visibility="shared")
    private = make_reading_list(other_user, "Bob's private", papers=[paper])
    alice = token_client(user)

    item = mine.items.get()
    url = f"/api/v1/lists/{mine.pk}/items/{item.pk}/status"
    assert post_json(alice, url, {"status": "read", "priority": 1}).status_code == 200
    item.refresh_from_db()
    assert (item.status, item.priority) == ("read", 1)
    # On Bob's shared list, Alice's own status; his private list answers 404.
    shared_item = shared.items.get()
    url = f"/api/v1/lists/{shared.pk}/items/{shared_item.pk}/status"
    assert post_json(alice, url, {"status": "reading"}).status_code == 200
    assert MemberReading.objects.get(item=shared_item, member=user).status == "reading"
    url = f"/api/v1/lists/{private.pk}/items/{private.items.get().pk}/status"
    assert post_json(alice, url, {"status": "reading"}).status_code == 404
    assert post_json(alice, url.replace("status", "x"), {}).status_code == 404

    note = post_json(alice, "/api/v1/notes", {"paper": paper.pk, "body": "**Bold** idea"})
    assert note.status_code == 201
    assert Note.objects.get(owner=user).body_html.startswith("<p><strong>Bold")

    tagged = post_json(alice, f"/api/v1/papers/{paper.pk}/tags", {"name": "Robotics"})
    assert tagged.status_code == 201 and tagged.json()["slug"] == "robotics"
    again = post_json(alice, f"/api/v1/papers/{paper.pk}/tags", {"name": "robotics"})
    assert again.status_code == 409

    quote = {"page": 1, "exact": "a quoted line", "start": 3, "end": 16, "visibility": "lab"}
    made = post_json(alice, f"/api/v1/papers/{paper.pk}/highlights", quote)
    assert made.status_code == 201
    assert made.json()["type"] == "Annotation" and made.json()["audience"] == "lab"
    highlight = Highlight.objects.get(author=user)
    assert highlight.comment is not None  # a lab highlight opens its thread, as on the site
    bad = post_json(alice, f"/api/v1/papers/{paper.pk}/highlights", {**quote, "end": 99})
    assert bad.status_code == 400


def test_a_visitor_and_a_guest_write_nothing(client, user):
    from accounts.models import Role
    from accounts.roles import set_role

    paper = make_paper("A paper")
    assert post_json(client, "/api/v1/notes", {"paper": paper.pk, "body": "x"}).status_code == 401
    guest = make_user("guest")
    set_role(guest, Role.GUEST)
    answer = post_json(token_client(guest), "/api/v1/notes", {"paper": paper.pk, "body": "x"})
    assert answer.status_code == 403
    assert not Note.objects.exists()
    # A guest reads the catalogue as a visitor does.
    assert token_client(guest).get(f"/api/v1/papers/{paper.pk}").status_code == 200


def test_a_form_body_is_refused_before_anything(user):
    paper = make_paper("A paper")
    answer = token_client(user).post("/api/v1/notes", {"paper": paper.pk, "body": "x"})
    assert answer.status_code == 415
    assert not Note.objects.exists()


def test_a_session_write_needs_its_csrf_token(user):
    """The site's own pages write with their session: without the CSRF token a JSON write is
    refused and changes nothing; with it, the same write is made."""
    from django.test import Client

    paper = make_paper("A paper")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    refused = post_json(browser, "/api/v1/notes", {"paper": paper.pk, "body": "x"})
    assert refused.status_code == 403
    assert not Note.objects.exists()
    browser.get("/")  # the page sets the CSRF cookie its scripts send back
    token = browser.cookies["csrftoken"].value
    made = browser.post(
        "/api/v1/notes",
        data={"paper": paper.pk, "body": "x"},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert made.status_code in (200, 201)
    assert Note.objects.filter(owner=user, paper=paper).count() == 1
