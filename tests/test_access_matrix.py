"""Who may do what with each URL.

First the annotation URLs, listed once with their method: a second user gets 404 for another
user's private objects and read-only access to shared lists; anonymous users are sent to log
in; GET on a mutation URL is refused with 405 and changes nothing.

Then every route of the site (issue 43), for six roles: visitor, owner, another member,
curator, superuser, guest (issue 41). tests/access_table.py holds one row per route, object
and method with the answer each role gets; tests/access_world.py the world (a private note,
list, highlight, saved search and prepared export, a member's uploaded PDF). Every refusal has
a positive control beside it, no response to anyone but the owner holds the owner's private
text, none to a guest the lab's, no POST passes without its CSRF token, and a route missing
from the table fails test_every_route_of_the_site_is_in_the_matrix_or_exempt. The admin's
model pages are swept for every model and object of the world.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import reverse

from annotations.models import Comment, Note, ReadingList, ReadingListItem, Visibility
from papers.models import PaperTag
from tests.access_table import (
    ADMIN_SWEEP_KEYS,
    POSITIVE,
    ROWS,
    Row,
    admin_sweep_urls,
    route_key,
    site_routes,
)
from tests.access_world import COMMENT, LAB_ONLY, ROLES, SECRETS, build_world, snapshot
from tests.access_world import World as RouteWorld
from tests.factories import (
    make_comment,
    make_lab_tag,
    make_note,
    make_paper,
    make_reading_list,
    make_user,
)


@dataclass
class World:
    owner: object
    stranger: object
    paper: object
    note: Note
    private_list: ReadingList
    shared_list: ReadingList
    private_item: ReadingListItem
    shared_item: ReadingListItem
    comment: Comment
    lab_tag: PaperTag


@pytest.fixture
def world(db) -> World:
    owner, stranger = make_user("owner"), make_user("stranger")
    paper, other_paper = make_paper("Shared paper"), make_paper("Another paper")
    private_list = make_reading_list(owner, "Private list", papers=[paper, other_paper])
    shared_list = make_reading_list(
        owner, "Shared list", papers=[paper, other_paper], visibility=Visibility.SHARED
    )
    return World(
        owner=owner,
        stranger=stranger,
        paper=paper,
        note=make_note(owner, paper, "owner's secret note"),
        private_list=private_list,
        shared_list=shared_list,
        private_item=private_list.items.get(paper=paper),
        shared_item=shared_list.items.get(paper=paper),
        comment=make_comment(owner, paper, "owner's comment"),
        lab_tag=make_lab_tag(paper, "owner-tag", added_by=owner),
    )


def _list_urls(w: World, reading_list: ReadingList, item: ReadingListItem) -> dict[str, str]:
    pk, item_pk = reading_list.pk, item.pk
    return {
        "detail": reverse("annotations:list-detail", args=[pk]),
        "edit": reverse("annotations:list-edit", args=[pk]),
        "delete": reverse("annotations:list-delete", args=[pk]),
        "bibtex": reverse("annotations:list-export-bibtex", args=[pk]),
        "csv": reverse("annotations:list-export-csv", args=[pk]),
        "item-add": reverse("annotations:list-item-add", args=[pk]),
        "item-remove": reverse("annotations:list-item-remove", args=[pk, item_pk]),
        "item-move": reverse("annotations:list-item-move", args=[pk, item_pk]),
        "item-status": reverse("annotations:list-item-status", args=[pk, item_pk]),
    }


# What a delete posts once asked (annotations.views.common.unconfirmed_delete).
CONFIRMED = {"confirmed": "yes"}

# (name, method, POST data) for each object-level URL.
LIST_ACTIONS = [
    ("detail", "get", None),
    ("edit", "get", None),
    ("edit", "post", {"name": "Renamed", "visibility": "private"}),
    ("delete", "post", {"confirmed": "yes"}),
    ("bibtex", "get", None),
    ("csv", "get", None),
    ("item-add", "post", {"paper": "1"}),
    ("item-remove", "post", {}),
    ("item-move", "post", {"direction": "down"}),
    ("item-status", "post", {"status": "read", "priority": "1"}),
]
READ_ONLY = {"detail", "bibtex", "csv"}
# A reader's own reading status on a shared list (issue 41): set beside the owner's, which
# stays as it was.
OWN_STATUS = {"item-status"}

OTHER_ACTIONS = [
    ("note-edit", "get", None),
    ("note-edit", "post", {"body": "hijacked"}),
    ("note-delete", "post", {"confirmed": "yes"}),
    ("comment-edit", "get", None),
    ("comment-edit", "post", {"body": "hijacked"}),
    ("comment-delete", "post", {"confirmed": "yes"}),
    ("tag-remove", "post", {}),
]


def _other_url(w: World, name: str) -> str:
    pk = {"note": w.note.pk, "comment": w.comment.pk, "tag": w.lab_tag.pk}[name.split("-")[0]]
    return reverse(f"annotations:{name}", args=[pk])


def _snapshot(w: World) -> tuple:
    """Everything a refused request must leave untouched."""
    w.note.refresh_from_db()
    w.comment.refresh_from_db()
    return (
        w.note.body,
        w.comment.body,
        w.comment.removed_at,
        list(ReadingList.objects.order_by("pk").values_list("name", "visibility")),
        list(
            ReadingListItem.objects.order_by("pk").values_list(
                "reading_list", "paper", "position", "status", "priority"
            )
        ),
        PaperTag.objects.filter(pk=w.lab_tag.pk).exists(),
    )


def _call(client: Client, method: str, url: str, data):
    return client.get(url) if method == "get" else client.post(url, data or {})


@pytest.mark.parametrize(("action", "method", "data"), LIST_ACTIONS)
def test_stranger_gets_404_for_every_action_on_a_private_list(world, client, action, method, data):
    client.force_login(world.stranger)
    before = _snapshot(world)
    url = _list_urls(world, world.private_list, world.private_item)[action]
    response = _call(client, method, url, data)
    assert response.status_code == 404
    assert b"Private list" not in response.content
    assert _snapshot(world) == before


@pytest.mark.parametrize(("action", "method", "data"), LIST_ACTIONS)
def test_stranger_reads_a_shared_list_but_cannot_change_it(world, client, action, method, data):
    client.force_login(world.stranger)
    before = _snapshot(world)
    url = _list_urls(world, world.shared_list, world.shared_item)[action]
    response = _call(client, method, url, data)
    if action in READ_ONLY:
        assert response.status_code == 200
        body = response.getvalue()  # a streamed export too
        # BibTeX braces each capitalised word of a title ({Shared} paper).
        text = body.decode().replace("{Shared}", "Shared").replace("{Another}", "Another")
        assert "Shared paper" in text and "Another paper" in text
    elif action in OWN_STATUS:
        assert response.status_code == 302
    else:
        assert response.status_code == 404
        assert b"Shared paper" not in response.content
    assert _snapshot(world) == before


def test_shared_list_page_shows_no_owner_controls_to_others(world, client):
    client.force_login(world.stranger)
    response = client.get(world.shared_list.get_absolute_url())
    content = response.content.decode()
    assert "Shared paper" in content
    assert (
        reverse("annotations:list-item-remove", args=[world.shared_list.pk, world.shared_item.pk])
        not in content
    )
    assert reverse("annotations:list-edit", args=[world.shared_list.pk]) not in content


@pytest.mark.parametrize(("name", "method", "data"), OTHER_ACTIONS)
def test_stranger_gets_404_on_notes_comments_and_tags_of_others(world, client, name, method, data):
    client.force_login(world.stranger)
    before = _snapshot(world)
    response = _call(client, method, _other_url(world, name), data)
    assert response.status_code == 404
    assert b"owner&#x27;s secret note" not in response.content
    assert _snapshot(world) == before


def _all_object_urls(w: World):
    for action, method, data in LIST_ACTIONS:
        for reading_list, item in [
            (w.private_list, w.private_item),
            (w.shared_list, w.shared_item),
        ]:
            yield method, _list_urls(w, reading_list, item)[action], data
    for name, method, data in OTHER_ACTIONS:
        yield method, _other_url(w, name), data


def test_anonymous_users_are_sent_to_login_everywhere(world, client):
    before = _snapshot(world)
    page_urls = [
        reverse("annotations:notes"),
        reverse("annotations:lists"),
        reverse("annotations:lists-shared"),
        reverse("annotations:activity"),
    ]
    post_urls = [
        reverse("annotations:list-create"),
        reverse("annotations:note-add", args=[world.paper.pk]),
        reverse("annotations:paper-list-add", args=[world.paper.pk]),
        reverse("annotations:comment-add", args=[world.paper.pk]),
        reverse("annotations:tag-add", args=[world.paper.pk]),
    ]
    calls = [("get", url, None) for url in page_urls]
    calls += [("post", url, {"body": "x", "name": "x"}) for url in post_urls]
    calls += list(_all_object_urls(world))
    for method, url, data in calls:
        response = _call(client, method, url, data)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url
    assert _snapshot(world) == before


def _titles_in_order(reading_list: ReadingList) -> list[str]:
    return list(reading_list.items.order_by("position").values_list("paper__title", flat=True))


def test_owner_can_use_every_list_action(world, client):
    client.force_login(world.owner)
    reading_list, item = world.private_list, world.private_item
    urls = _list_urls(world, reading_list, item)
    assert {action for action, _, _ in LIST_ACTIONS} == set(urls)  # each one is tried below

    def page(action: str) -> str:
        response = client.get(urls[action])
        assert response.status_code == 200, action
        return response.getvalue().decode()  # a streamed export too

    def redirected(action: str, data: dict) -> None:
        response = client.post(urls[action], data)
        assert response.status_code == 302, action

    assert "Shared paper" in page("detail") and "Another paper" in page("detail")
    assert 'value="Private list"' in page("edit")
    assert "{Shared} paper" in page("bibtex") and "Shared paper" in page("csv")
    redirected("edit", {"name": "Renamed", "visibility": "private"})
    reading_list.refresh_from_db()
    assert reading_list.name == "Renamed"
    third = make_paper("Third paper")
    redirected("item-add", {"paper": str(third.pk)})
    assert _titles_in_order(reading_list) == ["Shared paper", "Another paper", "Third paper"]
    redirected("item-move", {"direction": "down"})
    assert _titles_in_order(reading_list) == ["Another paper", "Shared paper", "Third paper"]
    redirected("item-status", {"status": "read", "priority": "1"})
    item.refresh_from_db()
    assert (item.status, item.priority) == ("read", 1)
    redirected("item-remove", {})
    assert not reading_list.items.filter(pk=item.pk).exists()
    redirected("delete", {"confirmed": "yes"})
    assert not ReadingList.objects.filter(pk=reading_list.pk).exists()


MUTATION_URL_NAMES = [
    ("note-add", "paper"),
    ("note-delete", "note"),
    ("list-create", None),
    ("list-delete", "list"),
    ("list-item-add", "list"),
    ("list-item-remove", "item"),
    ("list-item-move", "item"),
    ("list-item-status", "item"),
    ("paper-list-add", "paper"),
    ("comment-add", "paper"),
    ("comment-delete", "comment"),
    ("tag-add", "paper"),
    ("tag-remove", "tag"),
]


def _mutation_url(w: World, name: str, arg: str | None) -> str:
    """The URL `name` for the owner's object of kind `arg` (MUTATION_URL_NAMES)."""
    args = {
        None: [],
        "paper": [w.paper.pk],
        "note": [w.note.pk],
        "list": [w.private_list.pk],
        "item": [w.private_list.pk, w.private_item.pk],
        "comment": [w.comment.pk],
        "tag": [w.lab_tag.pk],
    }[arg]
    return reverse(f"annotations:{name}", args=args)


@pytest.mark.parametrize(("name", "arg"), MUTATION_URL_NAMES)
def test_get_on_a_mutation_url_is_refused_and_changes_nothing(world, client, name, arg):
    client.force_login(world.owner)
    before = _snapshot(world)
    response = client.get(_mutation_url(world, name, arg))
    assert response.status_code == 405
    assert _snapshot(world) == before
    # A page that says why, not a blank one; the Allow header names the method that works.
    assert "This address is not a page" in response.content.decode()
    assert "POST" in response["Allow"]


@pytest.mark.parametrize(("name", "arg"), MUTATION_URL_NAMES)
def test_every_post_needs_a_csrf_token(world, name, arg):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.owner)
    before = _snapshot(world)
    response = client.post(
        _mutation_url(world, name, arg),
        {"body": "x", "name": "Another", "paper": str(world.paper.pk), "direction": "down"},
    )
    assert response.status_code == 403
    assert _snapshot(world) == before


def test_edit_forms_also_need_a_csrf_token(world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.owner)
    before = _snapshot(world)
    for url in [
        reverse("annotations:note-edit", args=[world.note.pk]),
        reverse("annotations:comment-edit", args=[world.comment.pk]),
        reverse("annotations:list-edit", args=[world.private_list.pk]),
    ]:
        assert client.post(url, {"body": "changed", "name": "changed"}).status_code == 403
    assert _snapshot(world) == before


def test_staff_may_remove_any_comment_and_lab_tag(world, client):
    moderator = make_user("moderator", is_staff=True)
    client.force_login(moderator)
    assert (
        client.post(
            reverse("annotations:comment-delete", args=[world.comment.pk]), CONFIRMED
        ).status_code
        == 302
    )
    assert (
        client.post(reverse("annotations:tag-remove", args=[world.lab_tag.pk])).status_code == 302
    )
    world.comment.refresh_from_db()
    assert world.comment.is_removed and world.comment.removed_by == moderator
    assert not PaperTag.objects.filter(pk=world.lab_tag.pk).exists()


def test_staff_cannot_read_or_edit_private_notes_and_lists(world, client):
    client.force_login(make_user("moderator", is_staff=True))
    before = _snapshot(world)
    note = client.get(reverse("annotations:note-edit", args=[world.note.pk]))
    assert note.status_code == 404
    assert b"owner&#x27;s secret note" not in note.content
    private_list = client.get(world.private_list.get_absolute_url())
    assert private_list.status_code == 404
    assert b"Private list" not in private_list.content
    edit = client.post(reverse("annotations:comment-edit", args=[world.comment.pk]), {"body": "x"})
    assert edit.status_code == 404
    assert _snapshot(world) == before


def test_each_url_acts_on_the_object_it_names_and_on_no_other(world, client):
    """The owner has two notes, comments and lab tags: acting on the second of each leaves
    the first (the world's) exactly as it was."""
    note = make_note(world.owner, world.paper, "second note")
    comment = make_comment(world.owner, world.paper, "second comment")
    lab_tag = make_lab_tag(world.paper, "second-tag", added_by=world.owner)
    client.force_login(world.owner)
    before = _snapshot(world)
    for name, obj, text in [
        ("note-edit", note, "second note"),
        ("comment-edit", comment, "second comment"),
    ]:
        form = client.get(reverse(f"annotations:{name}", args=[obj.pk]))
        assert form.status_code == 200
        assert text in form.content.decode() and "owner&#x27;s" not in form.content.decode()
    for name, obj in [("note-edit", note), ("comment-edit", comment)]:
        url = reverse(f"annotations:{name}", args=[obj.pk])
        assert client.post(url, {"body": "changed"}).status_code == 302
        obj.refresh_from_db()
        assert obj.body == "changed"
    for name, obj in [("comment-delete", comment), ("tag-remove", lab_tag), ("note-delete", note)]:
        assert (
            client.post(reverse(f"annotations:{name}", args=[obj.pk]), CONFIRMED).status_code == 302
        )
    comment.refresh_from_db()
    assert comment.is_removed
    assert not PaperTag.objects.filter(pk=lab_tag.pk).exists()
    assert not Note.objects.filter(pk=note.pk).exists()
    assert _snapshot(world) == before


# Every route, five roles (tests/access_table.py: one row per route, object and method).


@pytest.fixture
def route_world(db, settings, tmp_path) -> RouteWorld:
    settings.MEDIA_ROOT = tmp_path / "media"
    return build_world()


def _body(response) -> str:
    # Read whole, the test client closes it (closing it here would also close the database
    # connection, as a request's end does).
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode("utf-8", errors="replace")


def _answer(response, row: Row) -> str:
    if response.status_code in (301, 302, 303):  # 303: see the page that follows a POST
        login = reverse("admin:login" if row.route.startswith("admin:") else "login")
        return "login" if response["Location"].startswith(login) else "302"
    return str(response.status_code)


def _check(w: RouteWorld, row: Row, role: str) -> None:
    before = snapshot(w)
    client, url = w.client_for(role), row.url(w)
    if row.method == "get":
        response = client.get(url)
    else:
        response = client.post(url, row.payload(w))
    expected, body = row.answers()[role], _body(response)
    assert _answer(response, row) == expected.rstrip("+-"), f"{row} as {role}"
    if role != "owner":
        assert [s for s in SECRETS if s in body] == [], f"{row} as {role}"
    if role == "guest":
        assert [s for s in LAB_ONLY if s in body] == [], f"{row} as a guest"
    if expected.endswith("+"):
        assert row.shows in body, f"{row} as {role}: the positive control"
        if role == "owner" and row.owner_sees:
            assert row.owner_sees in body, f"{row} as the owner"
    if row.method == "get" or expected not in POSITIVE:
        assert snapshot(w) == before, f"{row} as {role} changed something"
    elif expected == "302":
        assert snapshot(w) != before, f"{row} as {role}: the positive control changed nothing"


@pytest.mark.parametrize("row", [row for row in ROWS if row.method == "get"], ids=str)
def test_every_page_answers_each_role_as_the_table_says(route_world, row):
    for role in ROLES:  # a GET changes nothing (checked), so one world serves the six
        _check(route_world, row, role)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("row", [row for row in ROWS if row.method == "post"], ids=str)
def test_every_form_answers_each_role_as_the_table_says(route_world, row, role):
    _check(route_world, row, role)


@pytest.mark.parametrize("role", [role for role in ROLES if role != "visitor"])
def test_no_form_of_the_table_passes_without_its_csrf_token(route_world, role):
    """Each POST row, sent by a signed-in role without the token, is refused and changes
    nothing, the forms that role may use included (their positive controls are the rows)."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(route_world.users[role])
    before = snapshot(route_world)
    answers = {}
    for row in ROWS:
        if row.method == "post":
            response = client.post(row.url(route_world), row.payload(route_world))
            answers[str(row)] = response.status_code
            assert [s for s in SECRETS if s in _body(response)] == [], f"{row} as {role}"
    # 415: the API's writes take JSON, and a form's body is refused before anything else
    # (tests/test_api_writes.py checks their CSRF with JSON bodies).
    passed = {row: status for row, status in answers.items() if status not in (403, 415)}
    assert passed == CSRF_EXEMPT, role
    assert snapshot(route_world) == before


# POSTs that need no CSRF token, and why.
CSRF_EXEMPT: dict[str, int] = {}


def test_every_route_has_a_positive_control_beside_its_refusals():
    # 302-: a form answered with a message (an upload onto a stored PDF; its control is the
    # upload onto a paper without one).
    allowed = POSITIVE | {"302-"}
    answers: dict[str, set[str]] = {}
    for row in ROWS:
        answers.setdefault(row.route, set()).update(row.answers().values())
    alone = [route for route, seen in answers.items() if not allowed & seen]
    assert sorted(alone) == sorted(CONTROLLED_ELSEWHERE)


# Routes whose every answer in the table is a refusal, and the test with their positive control.
CONTROLLED_ELSEWHERE = {
    "signup": "test_signup_when_it_is_allowed",
    "accounts:accept": "test_accounts_invitations: test_the_link_sets_a_password_and_logs_in",
    "openid_connect_login": "test_accounts_sso: a configured provider's sign-in",
    "openid_connect_callback": "test_accounts_sso: a configured provider's sign-in",
    "orcid_login": "test_accounts_sso: test_a_member_connects_their_orcid_and_then_signs_in...",
    "orcid_callback": "test_accounts_sso: test_a_member_connects_their_orcid_and_then_signs_in...",
    # Pages allauth shows after a failed sign-in and its name for the login page (ours).
    "socialaccount_login_error": "an error page: 401 for everyone",
    "account_login": "an alias of the site's login page",
    # The JSON API's writes take JSON bodies (the table posts forms) and its root is no page.
    "api-1:api-root": "no page: the API's document is api-1:openapi-json",
    "/api/v1/papers/-1": "no page: any address under the API's that no route takes (api.api)",
    "api-1:item_add": "test_api_writes: test_add_by_id_and_by_identifier",
    "api-1:item_status": "test_api_writes: test_reading_status_note_tag_highlight",
    "api-1:note_add": "test_api_writes: test_reading_status_note_tag_highlight",
    "api-1:tag_add": "test_api_writes: test_reading_status_note_tag_highlight",
    "api-1:highlight_add": "test_api_writes: test_reading_status_note_tag_highlight",
}


def test_signup_when_it_is_allowed(client, db, settings):
    settings.ALLOW_SIGNUP = True
    assert client.get(reverse("signup")).status_code == 200


def test_every_route_of_the_site_is_in_the_matrix_or_exempt():
    """A new route fails here until it has a row in tests/access_table.py (or is one of the
    admin's model pages, which the admin sweep below visits)."""
    covered = {route_key(row) for row in ROWS} | ADMIN_SWEEP_KEYS | set(EXEMPT)
    missing = sorted({key for key, route in site_routes()} - covered)
    assert missing == [], "routes without a row in tests/access_table.py: " + ", ".join(missing)
    stale = sorted(set(EXEMPT) - {key for key, _ in site_routes()})
    assert stale == [], "exemptions of routes that are gone: " + ", ".join(stale)


# Routes neither in the table nor in the sweep, each with the reason.
EXEMPT: dict[str, str] = {}


@pytest.mark.parametrize("role", ROLES)
def test_every_admin_page_keeps_private_text_from_every_role(route_world, role):
    """Visitors and members are sent to the admin's login; curators and superusers get the
    page, a refusal or a redirect, and never another member's private text."""
    client, before = route_world.client_for(role), snapshot(route_world)
    urls = admin_sweep_urls()
    answers = {}
    for url in urls:
        response = client.get(url)
        body = _body(response)
        assert [s for s in SECRETS if s in body] == [], f"{url} as {role}"
        if response.status_code == 302:
            login = response["Location"].startswith(reverse("admin:login"))
            answers[url] = "login" if login else "302"
        else:
            answers[url] = str(response.status_code)
    if role in ("visitor", "owner", "member"):
        assert set(answers.values()) == {"login"}, answers
    elif role == "guest":  # accounts.middleware: no admin route is a guest's
        assert set(answers.values()) == {"403"}, answers
    else:
        assert set(answers.values()) <= {"200", "302", "403", "404"}, answers
        assert "login" not in answers.values()
    assert snapshot(route_world) == before


def test_a_guest_reads_and_joins_the_comment_threads(route_world):
    """The guest's positive control beside the matrix's refusals: the paper's thread is
    theirs to read and to write in (the lab-only texts stay out, checked by the rows)."""
    client = route_world.client_for("guest")
    page = client.get(reverse("papers:detail", args=[route_world.paper.pk]))
    assert page.status_code == 200 and COMMENT in page.content.decode()
    posted = client.post(
        reverse("annotations:comment-add", args=[route_world.paper.pk]), {"body": "Guest here"}
    )
    assert posted.status_code == 302
    assert Comment.objects.filter(author=route_world.users["guest"], body="Guest here").exists()
