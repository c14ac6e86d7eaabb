"""Highlight and share in three actions (issue 39, point 3; docs/highlights.md): a new
highlight takes the member's remembered visibility (kept on the server, so on every device),
its author switches it between private and lab in one click on the paper page's panel or a
list's page, and both pages show who highlighted what, newest first. Making a lab highlight
private withdraws its thread as the reader's edit does: another member then finds it nowhere
(panel, list page, notifications, JSON-LD, exports), while a lab highlight beside it stays in
each place as the positive control."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotations.models import Comment, Notification
from highlights.models import Highlight
from tests.factories import make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db

SECRET = "ann's quote made private"
SECRET_NOTE = "ann's note made private, @bob"
SHARED = "ann's quote still shared"
SHARED_NOTE = "ann's note still shared, @bob"


def member(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post_highlight(client: Client, paper, exact: str, **fields) -> Highlight:
    data = {"page": "2", "exact": exact, "start": "0", "end": str(len(exact)), **fields}
    response = client.post(reverse("highlights:list", args=[paper.pk]), data)
    assert response.status_code == 201, response.content
    return Highlight.objects.get(pk=response.json()["id"])


def switch(client: Client, highlight: Highlight, visibility: str):
    return client.post(
        reverse("highlights:visibility", args=[highlight.pk]), {"visibility": visibility}
    )


def text_of(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def default_visibility(client: Client, paper) -> str:
    return client.get(reverse("highlights:list", args=[paper.pk])).json()["default_visibility"]


def test_a_new_highlight_takes_the_visibility_the_member_chose_last_on_any_device():
    ann, bob = make_user("ann"), make_user("bob")
    paper = make_paper()
    laptop, phone = member(ann), member(ann)
    assert default_visibility(phone, paper) == "private"  # before any choice

    post_highlight(laptop, paper, "first", visibility="lab")

    assert default_visibility(phone, paper) == "lab"  # another session, the server's memory
    assert post_highlight(phone, paper, "second").visibility == "lab"  # none posted: the default
    assert default_visibility(member(bob), paper) == "private"  # ann's choice is hers


def test_one_click_shares_a_private_highlight_and_the_lab_then_sees_it():
    ann, bob = make_user("ann"), make_user("bob")
    paper = make_paper()
    highlight = post_highlight(member(ann), paper, SECRET, visibility="private")
    assert SECRET not in text_of(member(bob), paper.get_absolute_url())

    response = switch(member(ann), highlight, "lab")

    assert response.status_code == 302
    assert response.url == f"{paper.get_absolute_url()}#panel-highlight-{highlight.pk}"
    highlight.refresh_from_db()
    assert highlight.is_shared and highlight.comment is not None
    assert SECRET in text_of(member(bob), paper.get_absolute_url())
    assert default_visibility(member(ann), paper) == "lab"  # the switch is a choice too


def test_one_click_making_a_lab_highlight_private_hides_it_from_the_lab_everywhere():
    ann, bob = make_user("ann"), make_user("bob")
    paper = make_paper()
    make_reading_list(ann, "ann's shared list", papers=[paper], visibility="shared")
    reading_list = ann.reading_lists.get()
    author = member(ann)
    shared = post_highlight(author, paper, SHARED, note=SHARED_NOTE, visibility="lab")
    secret = post_highlight(author, paper, SECRET, note=SECRET_NOTE, visibility="lab")
    thread = secret.comment
    assert Notification.objects.filter(recipient=bob, comment=thread).exists()

    response = switch(author, secret, "private")

    assert response.status_code == 302
    assert not Comment.objects.filter(pk=thread.pk).exists()  # withdrawn: nothing replied
    assert not Notification.objects.filter(recipient=bob, comment_id=thread.pk).exists()
    reader = member(bob)
    places = [
        paper.get_absolute_url(),  # the panel and the discussion
        reading_list.get_absolute_url(),  # the list's page
        reverse("annotations:notifications"),
        reverse("annotations:activity"),
        reverse("highlights:list", args=[paper.pk]),  # the reader's JSON
    ]
    for url in places:
        seen = text_of(reader, url)
        assert SHARED in seen, url  # the positive control
        assert SECRET not in seen and "note made private" not in seen, url
    assert reader.get(reverse("highlights:jsonld", args=[secret.pk])).status_code == 404
    assert reader.get(reverse("highlights:jsonld", args=[shared.pk])).status_code == 200
    # Exports are the reader's own: bob's hold none of ann's, shared or not.
    export = text_of(reader, reverse("highlights:list-export", args=[reading_list.pk]))
    assert SECRET not in export and SHARED not in export
    assert SECRET in text_of(author, reverse("highlights:list-export", args=[reading_list.pk]))


def test_a_lab_highlight_made_private_keeps_the_replies_but_not_its_text():
    ann, bob = make_user("ann"), make_user("bob")
    paper = make_paper()
    secret = post_highlight(member(ann), paper, SECRET, visibility="lab")
    Comment.objects.create(paper=paper, author=bob, body="bob's reply", parent=secret.comment)

    switch(member(ann), secret, "private")

    seen = text_of(member(bob), paper.get_absolute_url())
    assert "bob's reply" in seen and "comment removed" in seen
    assert SECRET not in seen


def test_another_member_cannot_switch_a_highlight_and_learns_nothing_of_it():
    ann, bob = make_user("ann"), make_user("bob")
    paper = make_paper()
    private = post_highlight(member(ann), paper, SECRET, visibility="private")
    lab = post_highlight(member(ann), paper, SHARED, visibility="lab")

    assert switch(member(bob), private, "lab").status_code == 404
    assert switch(member(bob), lab, "private").status_code == 404
    assert Client().post(reverse("highlights:visibility", args=[lab.pk])).status_code == 302
    private.refresh_from_db()
    lab.refresh_from_db()
    assert (private.visibility, lab.visibility) == ("private", "lab")
    assert lab.comment is not None


def test_a_switch_without_a_known_visibility_changes_nothing():
    ann = make_user("ann")
    lab = post_highlight(member(ann), make_paper(), SHARED, visibility="lab")
    for posted in ("", "public"):
        assert switch(member(ann), lab, posted).status_code == 302
        lab.refresh_from_db()
        assert lab.visibility == "lab" and lab.comment is not None


def test_the_switch_shows_only_on_the_members_own_highlights():
    ann, bob = make_user("ann"), make_user("bob")
    paper = make_paper()
    mine = post_highlight(member(ann), paper, "ann's own", visibility="private")
    theirs = post_highlight(member(bob), paper, "bob's shared", visibility="lab")
    page = member(ann).get(paper.get_absolute_url()).content.decode()
    assert reverse("highlights:visibility", args=[mine.pk]) in page
    assert "Share with the lab" in page
    assert reverse("highlights:visibility", args=[theirs.pk]) not in page


def highlight_days_ago(days: int, author, paper, exact: str, visibility: str) -> None:
    highlight = post_highlight(member(author), paper, exact, visibility=visibility)
    Highlight.objects.filter(pk=highlight.pk).update(
        created_at=highlight.created_at - timedelta(days=days)
    )


def test_the_panel_shows_who_highlighted_what_newest_first():
    cleo, dan, eve = make_user("cleo"), make_user("dan"), make_user("eve")
    paper = make_paper()
    highlight_days_ago(3, eve, paper, "eve's oldest", "lab")
    highlight_days_ago(1, cleo, paper, "cleo's newest", "lab")
    highlight_days_ago(0, dan, paper, "dan's private", "private")
    page = text_of(member(make_user("viewer")), paper.get_absolute_url())
    section = page[page.index('id="paper-highlights"') :]
    assert section.index("<strong>cleo</strong>") < section.index("<strong>eve</strong>")
    assert section.index("cleo's newest") < section.index("eve's oldest")
    assert "dan's private" not in page
    own = text_of(member(dan), paper.get_absolute_url())
    assert "dan's private" in own and "<strong>You</strong>" in own


def test_a_lists_page_shows_who_highlighted_what_in_its_papers_newest_first():
    owner = make_user("owner")
    listed, also_listed, elsewhere = make_paper("In the list"), make_paper("Also"), make_paper()
    reading_list = make_reading_list(owner, papers=[listed, also_listed], visibility="shared")
    for days, author, paper, exact, visibility in [
        (3, make_user("eve"), also_listed, "eve's oldest", "lab"),
        (1, make_user("cleo"), listed, "cleo's newest", "lab"),
        (0, owner, listed, "owner's private", "private"),
        (0, make_user("fay"), elsewhere, "fay's, not in the list", "lab"),
    ]:
        highlight_days_ago(days, author, paper, exact, visibility)

    seen = text_of(member(make_user("viewer")), reading_list.get_absolute_url())
    section = seen[seen.index('id="list-highlights"') :]
    assert section.index("cleo's newest") < section.index("eve's oldest")
    assert "<strong>cleo</strong>" in section and "<strong>eve</strong>" in section
    assert "owner's private" not in seen and "fay's" not in seen
    assert "owner's private" in text_of(member(owner), reading_list.get_absolute_url())


def test_a_lists_highlights_cost_one_query_however_many():
    owner = make_user("owner")
    paper = make_paper()
    reading_list = make_reading_list(owner, "Mine", papers=[paper])
    reader = member(owner)
    url = reading_list.get_absolute_url()
    reader.get(url)  # the session's first request may write; later ones only read

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            reader.get(url)
        return len(captured)

    highlight_days_ago(0, owner, paper, "the first", "private")
    one = queries()
    for n in range(5):
        highlight_days_ago(n, make_user(f"member{n}"), paper, f"quote {n}", "lab")
    assert queries() == one
    assert text_of(reader, url).count('class="highlight"') == 6
