"""Member text refuses bidirectional embeddings, overrides and isolates, as list names and tags
do: "approved \u202egnp.exe\u202c" would show the lab "approved exe.png". Refused with a form
error and the text kept for correcting, never silently stripped. Marks (LRM, RLM), which
right-to-left writing uses, are kept."""

from __future__ import annotations

import pytest
from django.urls import reverse

from alerts.models import SavedSearch
from annotations.models import Comment, Note, ReadingList
from tests.factories import make_comment, make_note, make_paper, make_reading_list

SPOOF = "approved \u202egnp.exe\u202c"
# An override as Markdown writes it: a character reference, an override once rendered.
SPOOFS = [SPOOF, "approved &#8238;gnp.exe", "isolated \u2067text\u2069"]
REFUSED = "contains a bidirectional embedding, override or isolate character"


@pytest.fixture
def member(client, user):
    client.force_login(user)
    return user


@pytest.fixture
def paper(db):
    return make_paper("A paper", abstract="Words to quote from the abstract.")


@pytest.mark.parametrize("body", SPOOFS)
def test_a_comment_with_a_bidi_override_is_refused(client, member, paper, body):
    response = client.post(reverse("annotations:comment-add", args=[paper.pk]), {"body": body})
    assert f"A comment {REFUSED}" in response.content.decode()
    assert not Comment.objects.exists()


def test_a_reply_with_a_bidi_override_is_refused(client, member, paper, other_user):
    parent = make_comment(other_user, paper)
    url = reverse("annotations:comment-add", args=[paper.pk])
    response = client.post(url, {"body": SPOOF, "parent": str(parent.pk)})
    assert f"A comment {REFUSED}" in response.content.decode()
    assert list(Comment.objects.all()) == [parent]


def test_a_comment_on_a_quote_with_a_bidi_override_is_refused(client, member, paper):
    data = {"body": SPOOF, "quote": "Words to quote", "quote_start": "0"}
    response = client.post(reverse("annotations:comment-add", args=[paper.pk]), data)
    assert f"A comment {REFUSED}" in response.content.decode()
    assert not Comment.objects.exists()


def test_a_comment_edited_to_a_bidi_override_is_refused_and_kept_as_it_was(client, member, paper):
    comment = make_comment(member, paper, "first")
    response = client.post(reverse("annotations:comment-edit", args=[comment.pk]), {"body": SPOOF})
    assert f"A comment {REFUSED}" in response.content.decode()
    comment.refresh_from_db()
    assert comment.body == "first"


@pytest.mark.parametrize("body", SPOOFS)
def test_a_note_with_a_bidi_override_is_refused(client, member, paper, body):
    response = client.post(reverse("annotations:note-add", args=[paper.pk]), {"body": body})
    assert f"A note {REFUSED}" in response.content.decode()
    assert not Note.objects.exists()


def test_a_note_edited_to_a_bidi_override_is_refused_and_kept_as_it_was(client, member, paper):
    note = make_note(member, paper, "first")
    response = client.post(reverse("annotations:note-edit", args=[note.pk]), {"body": SPOOF})
    assert f"A note {REFUSED}" in response.content.decode()
    note.refresh_from_db()
    assert note.body == "first"


def test_the_refused_text_is_shown_again_for_correcting(client, member, paper):
    response = client.post(reverse("annotations:note-add", args=[paper.pk]), {"body": SPOOF})
    assert "gnp.exe" in response.content.decode()


def test_right_to_left_text_with_marks_is_kept(client, member, paper):
    body = "\u05e9\u05dc\u05d5\u05dd\u200f (hello)"
    client.post(reverse("annotations:comment-add", args=[paper.pk]), {"body": body})
    assert Comment.objects.get().body == body


def test_a_list_description_with_a_bidi_override_is_refused(client, member):
    data = {"name": "Reading group", "description": SPOOF, "visibility": "shared"}
    response = client.post(reverse("annotations:list-create"), data)
    assert f"The description {REFUSED}" in response.content.decode()
    assert not ReadingList.objects.exists()


def test_a_list_description_edited_to_a_bidi_override_is_refused(client, member):
    reading_list = make_reading_list(member, "Reading group", description="kept")
    data = {"name": "Reading group", "description": SPOOF, "visibility": "shared"}
    response = client.post(reverse("annotations:list-edit", args=[reading_list.pk]), data)
    assert f"The description {REFUSED}" in response.content.decode()
    reading_list.refresh_from_db()
    assert reading_list.description == "kept"


def test_a_saved_search_name_with_a_bidi_override_is_refused(client, member):
    response = client.post(reverse("alerts:save"), {"name": SPOOF, "query": "q=graph"})
    assert response.status_code == 400
    assert f"The name {REFUSED}" in response.content.decode()
    assert not SavedSearch.objects.exists()


def test_a_saved_search_renamed_to_a_bidi_override_is_refused(client, member):
    search = SavedSearch.objects.create(owner=member, name="Graphs", query="q=graph")
    response = client.post(reverse("alerts:rename", args=[search.pk]), {"name": SPOOF})
    assert response.status_code == 400
    assert f"The name {REFUSED}" in response.content.decode()
    search.refresh_from_db()
    assert search.name == "Graphs"
