"""The JSON API's access matrix (issue 42): every operation of api.api's NinjaAPI, called by
seven callers in the page matrix's world (tests/access_world.py), each answer as CALLS says.

The callers: a visitor (no credentials); the owner (member A) with the site's session, with a
read-write token, with a read token, and with a token revoked after it was made; another member
(B) with a read-write token; a guest (accounts.roles) with a token. Whatever the answer, no
response to anyone but A's live credentials holds A's private texts (access_world.SECRETS) or
names A's private list, item, note, highlight or notification by its id or address; none to
the guest holds the lab's texts (access_world.LAB_ONLY); a GET and a refused write change
nothing (access_world.snapshot); a write by anyone but A leaves A's private things as they
were. An operation added to the API without a row here fails
test_the_matrix_has_a_row_for_every_operation_of_the_api.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
import respx
from django.db import transaction
from django.test import Client
from django.urls import reverse

from accounts.models import Role
from accounts.roles import set_role
from annotations.models import (
    ListChange,
    MemberReading,
    Note,
    Notification,
    ReadingListItem,
    ReadingStatus,
)
from api.api import api
from api.models import TokenScope
from api.tokens import create_token, revoke
from highlights.models import Highlight
from papers.models import LinkFetch, Review
from tests import access_world as aw
from tests.access_table import TARGETS
from tests.api_helpers import bearer_client, post_json, token_client
from tests.factories import make_note, make_reading_list
from tests.highlight_helpers import make_highlight

# Columns of CALLS' answers, in this order.
ACTORS = ("visitor", "session", "owner", "member", "reader", "revoked", "guest")
# Member A's live credentials: the callers who may read A's private things.
OWNER_SIDE = {"session", "owner", "reader"}
PREFIX = "/api/v1"
# A members-only review of the world's paper (papers.reviews): a member reads it, a visitor
# and a guest never do, as on the paper's page.
MEMBERS_REVIEW = "MEMBERS-ONLY-review-label"


@dataclass(frozen=True)
class Call:
    method: str
    path: str  # as the OpenAPI document names the operation
    target: str  # a key of access_table.TARGETS: the ids that fill the path's {...}, in order
    expect: str  # seven answers, in ACTORS' order
    shows: str = ""  # in a "+" answer's body; never in a plain 200's
    owner_sees: str = ""  # also in the body of a "+" answer to A's live credentials
    query: Callable[[aw.World], str] | str = ""
    body: Callable[[aw.World], dict] | None = None

    def answers(self) -> dict[str, str]:
        return dict(zip(ACTORS, self.expect.split(), strict=True))

    def url(self, w: aw.World) -> str:
        args = iter(TARGETS[self.target](w))
        path = re.sub(r"\{\w+\}", lambda _match: str(next(args)), self.path)
        query = self.query(w) if callable(self.query) else self.query
        return PREFIX + path + (f"?{query}" if query else "")

    def __str__(self) -> str:
        query = self.query if isinstance(self.query, str) else self.query.__name__
        return f"{self.method} {self.path} [{self.target}]" + (f" ?{query}" if query else "")


def _item(paper: str) -> Callable[[aw.World], dict]:
    return lambda w: {"paper": getattr(w, paper).pk}


def _of_paper(w: aw.World) -> str:
    return f"paper={w.paper.pk}"


def _quote(w: aw.World) -> dict:
    # On the paper without a PDF: no stored pages to check the anchor against.
    return {"page": 1, "exact": "api quote", "start": 5, "end": 14, "visibility": "private"}


GET, POST = "GET", "POST"
HIGHLIGHTS = "200 200+ 200+ 200+ 200+ 401 200"
SECRET_LIST, SHARED, LAB_EDIT = aw.SECRET_LIST, aw.SHARED_LIST, aw.LAB_EDIT_LIST

# One row per operation and object. Answers, for visitor, A's session, A's read-write token,
# B's read-write token, A's read token, A's revoked token, the guest's token:
#   200+ 200, and the body holds `shows` (and `owner_sees` for A's credentials)
#   200  200, and the body does not hold `shows` (the negative beside the positive control)
#   201 200 (a write)  the write is made (the world changes)
#   401 403 404  refused, nothing changed
CALLS = [
    # The catalogue: what a visitor reads on the list, paper, author and tag pages.
    Call(GET, "/papers", "-", "200+ 200+ 200+ 200+ 200+ 401 200+", shows=aw.PAPER_TITLE),
    # The "mine" facet counts the caller's own notes (a visitor's is ignored: all papers).
    Call(
        GET,
        "/papers",
        "-",
        "200+ 200+ 200+ 200 200+ 401 200",
        shows=aw.PAPER_TITLE,
        query="mine=notes",
    ),
    # Nobody finds a paper by A's private texts (the search indexes none of them).
    *[
        Call(GET, "/papers", "-", "200 200 200 200 200 401 200", aw.PAPER_TITLE, query=f"q={text}")
        for text in (aw.SECRET_NOTE, aw.SECRET_LIST, aw.SECRET_HIGHLIGHT)
    ],
    Call(GET, "/papers/{paper_id}", "paper", "200+ 200+ 200+ 200+ 200+ 401 200+", aw.PAPER_TITLE),
    Call(
        GET, "/papers/{paper_id}", "paper", "200 200+ 200+ 200+ 200+ 401 200", shows=MEMBERS_REVIEW
    ),
    Call(GET, "/authors/{author_id}", "author", "200+ 200+ 200+ 200+ 200+ 401 200+", "Ann Author"),
    Call(GET, "/tags", "-", "200+ 200+ 200+ 200+ 200+ 401 200+", shows="matrix-tag"),
    # The lists A may read; the lab's lists for B; the guest's own only (none here).
    Call(
        GET, "/lists", "-", "200 200+ 200+ 200+ 200+ 401 200", shows=SHARED, owner_sees=SECRET_LIST
    ),
    Call(GET, "/lists/{list_id}", "private list", "404 200+ 200+ 404 200+ 401 404", SECRET_LIST),
    Call(GET, "/lists/{list_id}", "shared list", "404 200+ 200+ 200+ 200+ 401 404", SHARED),
    Call(GET, "/lists/{list_id}", "lab-edit list", "404 200+ 200+ 200+ 200+ 401 404", LAB_EDIT),
    # A's request to fetch a paper by its DOI: A's alone.
    Call(GET, "/fetches/{fetch_id}", "link fetch", "404 200+ 200+ 404 200+ 401 404", '"failed"'),
    Call(GET, "/notes", "-", "200 200+ 200+ 200 200+ 401 200", shows=aw.SECRET_NOTE),
    Call(GET, "/notes", "-", "200 200+ 200+ 200 200+ 401 200", aw.SECRET_NOTE, query=_of_paper),
    # As W3C Web Annotations: the lab's for every member, A's private one (its quote and its
    # note) for A alone; all of them, and the paper's.
    *[
        Call(GET, "/highlights", "-", HIGHLIGHTS, aw.LAB_HIGHLIGHT, owner_sees=text, query=query)
        for text, query in [(aw.SECRET_HIGHLIGHT, ""), (aw.SECRET_HIGHLIGHT_NOTE, _of_paper)]
    ],
    Call(GET, "/notifications", "-", "200 200+ 200+ 200 200+ 401 200", shows='"reply"'),
    # Writes: a visitor and a revoked token 401, a read token and a guest 403, whoever may not
    # change the object on its page 404; A's (and B's, where the lab may) are made.
    Call(
        POST,
        "/lists/{list_id}/items",
        "private list",
        "401 201 201 404 403 401 403",
        body=_item("spare_paper"),
    ),
    Call(
        POST,
        "/lists/{list_id}/items",
        "shared list",
        "401 201 201 404 403 401 403",
        body=_item("spare_paper"),
    ),
    Call(
        POST,
        "/lists/{list_id}/items",
        "lab-edit list",
        "401 201 201 201 403 401 403",
        body=_item("spare_paper"),
    ),
    Call(
        POST,
        "/lists/{list_id}/items/{item_id}/status",
        "private item",
        "401 200 200 404 403 401 403",
        body=lambda w: {"status": "read", "priority": 1},
    ),
    # B's own reading status on A's shared list (MemberReading), A's kept.
    Call(
        POST,
        "/lists/{list_id}/items/{item_id}/status",
        "shared item",
        "401 200 200 200 403 401 403",
        body=lambda w: {"status": "reading"},
    ),
    Call(
        POST,
        "/notes",
        "-",
        "401 201 201 201 403 401 403",
        body=lambda w: {"paper": w.paper.pk, "body": "A note through the API"},
    ),
    Call(
        POST,
        "/papers/{paper_id}/tags",
        "paper",
        "401 201 201 201 403 401 403",
        body=lambda w: {"name": "api-tag"},
    ),
    Call(
        POST,
        "/papers/{paper_id}/highlights",
        "bare paper",
        "401 201 201 201 403 401 403",
        body=_quote,
    ),
]
WRITTEN = {"200", "201"}


def api_operations() -> set[tuple[str, str]]:
    """(method, path) of every operation the API routes, from its routers: an operation left
    out of the OpenAPI document is one all the same."""
    found = set()
    for prefix, router in api._routers:
        for path, path_view in router.path_operations.items():
            route = re.sub(r"\{(?:\w+:)?(\w+)\}", r"{\1}", (prefix + path).replace("//", "/"))
            for operation in path_view.operations:
                found |= {(method, "/" + route.lstrip("/")) for method in operation.methods}
    return found


def test_the_matrix_has_a_row_for_every_operation_of_the_api():
    schema = api.get_openapi_schema(path_prefix="")
    documented = {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method in operations
    }
    assert api_operations() == documented
    assert {(call.method, call.path) for call in CALLS} == documented


def _private_things(w: aw.World, data) -> Iterator[str]:
    """A's private objects that a JSON answer names, by id or address."""
    if isinstance(data, list):
        for each in data:
            yield from _private_things(w, each)
        return
    if isinstance(data, str):
        for name, address in [
            ("list", w.private_list.get_absolute_url()),
            ("highlight", w.private_highlight.get_jsonld_url()),
            ("note", w.note.get_absolute_url()),
        ]:
            if data.endswith(address):
                yield f"{name} address {data}"
        return
    if not isinstance(data, dict):
        return
    found = data.get("id")
    for name, shape, private in [
        ("list", {"visibility", "owner"}, w.private_list.pk),
        ("list item", {"position", "paper"}, w.private_item.pk),
        ("note", {"body", "paper"}, w.note.pk),
        ("notification", {"kind", "read"}, w.notification.pk),
    ]:
        if shape <= data.keys() and found == private:
            yield f"{name} {found}"
    for value in data.values():
        yield from _private_things(w, value)


def _body(response) -> str:
    return response.content.decode("utf-8", errors="replace")


def _private_state(w: aw.World) -> tuple:
    """A's private things and A's own reading status: what no one else's write may change."""
    return (
        list(Note.objects.filter(owner=w.owner).order_by("pk").values_list("paper", "body")),
        list(
            ReadingListItem.objects.filter(reading_list=w.private_list)
            .order_by("pk")
            .values_list("paper", "position", "status", "priority", "note")
        ),
        list(
            ReadingListItem.objects.filter(reading_list__in=[w.private_list, w.shared_list])
            .order_by("pk")
            .values_list("status", "priority")
        ),
        list(MemberReading.objects.filter(member=w.owner).values_list("item", "status")),
        list(
            Highlight.objects.filter(author=w.owner, visibility="private").values_list(
                "exact", "note", "visibility"
            )
        ),
    )


def callers(w: aw.World) -> dict[str, Client]:
    session = Client()
    session.force_login(w.owner)
    revoked, revoked_raw = create_token(user=w.owner, name="Old script", scope=TokenScope.WRITE)
    assert revoke(user=w.owner, pk=revoked.pk)
    return {
        "visitor": Client(),
        "session": session,
        "owner": token_client(w.owner, TokenScope.WRITE),
        "member": token_client(w.users["member"], TokenScope.WRITE),
        "reader": token_client(w.owner, TokenScope.READ),
        "revoked": bearer_client(revoked_raw),
        # As a token made while a member and kept when made a guest (a guest is refused the
        # tokens page).
        "guest": token_client(w.users["guest"], TokenScope.WRITE),
    }


def _seed(w: aw.World) -> None:
    """What the API shows beyond the page matrix's world: A's own status on the shared list
    (B reads B's own there), and a members-only review of the paper."""
    ReadingListItem.objects.filter(pk=w.shared_item.pk).update(status=ReadingStatus.READ)
    Review.objects.create(
        paper=w.paper,
        source="openreview",
        note_id="members-review",
        kind=Review.Kind.REVIEW,
        rating_label=MEMBERS_REVIEW,
        visibility=Review.Visibility.MEMBERS,
    )


@pytest.fixture
def world(db, settings, tmp_path) -> aw.World:
    settings.MEDIA_ROOT = tmp_path / "media"
    w = aw.build_world()
    _seed(w)
    return w


def _request(client: Client, call: Call, w: aw.World):
    if call.method == GET:
        return client.get(call.url(w))
    return post_json(client, call.url(w), call.body(w) if call.body else {})


def _check(w: aw.World, call: Call, actor: str, client: Client) -> None:
    before, private_before = aw.snapshot(w), _private_state(w)
    response = _request(client, call, w)
    expected, body = call.answers()[actor], _body(response)
    where = f"{call} as {actor}"
    assert str(response.status_code) == expected.rstrip("+"), f"{where}: {body[:300]}"
    if actor not in OWNER_SIDE:
        assert [s for s in aw.SECRETS if s in body] == [], where
        assert list(_private_things(w, json.loads(body))) == [], where
        assert _private_state(w) == private_before, f"{where} changed A's private things"
    if actor == "guest":
        assert [s for s in aw.LAB_ONLY if s in body] == [], where
    if expected.endswith("+"):
        assert call.shows in body, f"{where}: the positive control"
        if actor in OWNER_SIDE and call.owner_sees:
            assert call.owner_sees in body, f"{where}: A's own"
    elif call.shows:
        assert call.shows not in body, where
    if call.method == POST and expected in WRITTEN:
        assert aw.snapshot(w) != before, f"{where}: the positive control changed nothing"
    else:
        assert aw.snapshot(w) == before, f"{where} changed something"


@pytest.mark.parametrize("call", [call for call in CALLS if call.method == GET], ids=str)
def test_every_read_answers_each_caller_as_the_matrix_says(world, call):
    for actor, client in callers(world).items():  # a GET changes nothing (checked)
        _check(world, call, actor, client)


@pytest.mark.parametrize("call", [call for call in CALLS if call.method == POST], ids=str)
def test_every_write_answers_each_caller_as_the_matrix_says(world, call):
    for actor, client in callers(world).items():
        # Each caller's write is undone before the next caller's (a savepoint).
        with transaction.atomic():
            _check(world, call, actor, client)
            transaction.set_rollback(True)


def test_each_member_reads_their_own_reading_status_on_a_shared_list(world):
    """A's status on A's shared list is A's: B reads B's own (MemberReading) beside it."""
    member = world.users["member"]
    MemberReading.objects.create(item=world.shared_item, member=member, status="reading")
    url = f"{PREFIX}/lists/{world.shared_list.pk}"

    def statuses(client: Client) -> dict[int, str]:
        return {item["id"]: item["status"] for item in client.get(url).json()["items"]}

    others = world.shared_list.items.exclude(pk=world.shared_item.pk).values_list("pk", flat=True)
    mine = token_client(world.owner, TokenScope.READ)
    assert statuses(mine) == {world.shared_item.pk: "read"} | {pk: "to_read" for pk in others}
    theirs = token_client(member, TokenScope.READ)
    assert statuses(theirs) == {world.shared_item.pk: "reading"} | {pk: "to_read" for pk in others}


def test_a_token_past_its_rate_limit_is_answered_429_and_no_other_caller_is(world, settings):
    settings.API_TOKEN_RATE_LIMIT = 3
    settings.API_TOKEN_RATE_WINDOW = 60
    clients = callers(world)
    lists = f"{PREFIX}/lists"
    assert [clients["owner"].get(lists).status_code for _ in range(3)] == [200] * 3
    before = aw.snapshot(world)
    for call in CALLS:  # every operation, writes too: refused before anything is read
        refused = _request(clients["owner"], call, world)
        assert refused.status_code == 429, call
        assert refused["Retry-After"] == "60", call
        assert [s for s in aw.SECRETS if s in _body(refused)] == [], call
    assert aw.snapshot(world) == before
    # Another token of the same member, another member's: each has its own count.
    for name in ("reader", "member"):
        assert [clients[name].get(lists).status_code for _ in range(3)] == [200] * 3, name
        assert clients[name].get(lists).status_code == 429, name
    # The site's session is not counted (the pages have their own limits), nor a visitor.
    for name in ("session", "visitor"):
        assert [clients[name].get(lists).status_code for _ in range(5)] == [200] * 5, name


def test_where_every_page_needs_login_a_visitor_is_refused_every_operation(world, settings):
    settings.REQUIRE_LOGIN = True
    before = aw.snapshot(world)
    for call in CALLS:
        answer = _request(Client(), call, world)
        assert answer.status_code == 401, call
        assert [s for s in aw.SECRETS if s in _body(answer)] == [], call
    assert aw.snapshot(world) == before
    # The positive control: a member's token reads as before.
    answer = token_client(world.users["member"], TokenScope.READ).get(f"{PREFIX}/papers")
    assert answer.status_code == 200 and aw.PAPER_TITLE in _body(answer)


@pytest.mark.parametrize("query", ["", "q=matrix", "mine=notes", "mine=lists", "q=paper"])
@pytest.mark.parametrize("actor", ["visitor", "member", "guest"])
def test_the_search_answers_each_caller_what_the_list_page_shows_them(world, actor, query):
    """The same papers, in the same order, with the same total as the list page shows the
    same person (a visitor; B; the guest), whose page is the positive control."""
    user = world.users[actor]
    page_client, api_client = Client(), Client()
    if user is not None:
        page_client.force_login(user)
        api_client = token_client(user, TokenScope.READ)
    page = page_client.get(f"{reverse('papers:list')}?{query}")
    assert page.status_code == 200
    answer = api_client.get(f"{PREFIX}/papers?{query}").json()
    assert answer["total"] == page.context["total"]
    assert [paper["id"] for paper in answer["papers"]] == [p.pk for p in page.context["papers"]]


def test_a_member_made_a_guest_reads_nothing_of_the_lab_through_their_old_token(world):
    """A guest sees what a visitor sees (accounts.roles): a member's token, kept when its member
    is made a guest, no longer reads the lab's list they made, the note another member put on
    its item, their lab highlight, nor their own notes and notifications; the same token read
    them all the day before (the positive control)."""
    member = world.users["member"]
    lab_list = make_reading_list(
        member, "Lab list of a future guest", papers=[world.paper], visibility="lab_edit"
    )
    lab_list.items.update(note="LAB-ITEM-NOTE of another member")
    make_note(member, world.paper, "Own note of a future guest")
    make_highlight(member, world.paper, exact="Lab quote of a future guest", visibility="lab")
    token = token_client(member, TokenScope.READ)
    reads = [
        f"{PREFIX}/lists",
        f"{PREFIX}/lists/{lab_list.pk}",
        f"{PREFIX}/notes",
        f"{PREFIX}/highlights",
    ]
    texts = ("LAB-ITEM-NOTE", "Own note of a future guest", "Lab quote of a future guest")
    seen = "".join(_body(token.get(url)) for url in reads)
    assert [text for text in texts if text not in seen] == []
    set_role(member, Role.GUEST)
    answers = [token.get(url) for url in reads]
    assert [answer.status_code for answer in answers] == [200, 404, 200, 200]
    seen = "".join(_body(answer) for answer in answers)
    assert [text for text in texts if text in seen] == []
    assert [text for text in aw.LAB_ONLY if text in seen] == []
    # As a visitor: the catalogue still.
    assert aw.PAPER_TITLE in _body(token.get(f"{PREFIX}/papers/{world.paper.pk}"))


def test_a_deactivated_members_token_is_refused(world):
    """An account switched off can no longer log in, and its session reads as a visitor's
    (Django's ModelBackend): its tokens are refused as a revoked one is."""
    member = world.users["member"]
    token = token_client(member, TokenScope.WRITE)
    assert token.get(f"{PREFIX}/lists").status_code == 200  # the positive control
    member.is_active = False
    member.save(update_fields=["is_active"])
    before = aw.snapshot(world)
    for call in CALLS:
        answer = _request(token, call, world)
        assert answer.status_code == 401, call
        assert [s for s in aw.LAB_ONLY + aw.SECRETS if s in _body(answer)] == [], call
    assert aw.snapshot(world) == before


def test_a_fetch_asked_for_on_another_members_list_is_the_askers_to_follow(world):
    """B adds a paper not yet here to A's lab-edited list by its identifier: the fetch is B's
    request, whose status B reads (A does not), counted in B's lookups, not A's."""
    member = world.users["member"]
    url = f"{PREFIX}/lists/{world.lab_edit_list.pk}/items"
    with respx.mock(assert_all_called=False) as outside:
        queued = post_json(token_client(member), url, {"identifier": "arXiv:2401.01234"})
    assert outside.calls.call_count == 0
    assert queued.status_code == 202
    status_url = queued.json()["status_url"]
    assert token_client(member, TokenScope.READ).get(status_url).status_code == 200
    assert token_client(world.owner, TokenScope.READ).get(status_url).status_code == 404
    assert LinkFetch.objects.get(value="2401.01234").requested_by == member


def test_a_list_made_private_leaves_its_changes_out_of_the_others_notifications(world):
    """B was told of a change to A's shared list; once A makes it private, B's notifications
    no longer name it (as B's notifications page leaves it out: discussion.notifications_for)."""
    member = world.users["member"]
    change = ListChange.objects.create(
        reading_list=world.shared_list, actor=world.owner, kind="added", paper=world.paper
    )
    Notification.objects.create(recipient=member, kind="listchange", list_change=change)
    reader = token_client(member, TokenScope.READ)
    address = world.shared_list.get_absolute_url()
    assert [n["url"] for n in reader.get(f"{PREFIX}/notifications").json()] == [address]
    world.shared_list.visibility = "private"
    world.shared_list.save(update_fields=["visibility"])
    assert reader.get(f"{PREFIX}/notifications").json() == []
