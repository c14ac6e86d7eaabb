"""Deleting without JavaScript asks first: the delete buttons' confirmation lives in
static/js/annotations.js (or htmx's hx-confirm), and without it one click lost a note, a list,
a comment or a saved search for good. The server asks on a page of its own instead."""

from __future__ import annotations

import pytest
from django.urls import reverse

from alerts.models import SavedSearch
from annotations.models import Comment, Note, ReadingList
from tests.factories import make_comment, make_note, make_paper, make_reading_list


@pytest.fixture
def things(user):
    paper = make_paper()
    return {
        "note": make_note(user, paper, "careful thoughts"),
        "list": make_reading_list(user, "Reading group", papers=[paper]),
        "comment": make_comment(user, paper, "a remark"),
        "search": SavedSearch.objects.create(owner=user, name="Graphs", query="q=graph"),
    }


def _url(kind: str, pk: int) -> str:
    name = {
        "note": "annotations:note-delete",
        "list": "annotations:list-delete",
        "comment": "annotations:comment-delete",
        "search": "alerts:delete",
    }[kind]
    return reverse(name, args=[pk])


def _still_there(kind: str, pk: int) -> bool:
    if kind == "comment":
        return not Comment.objects.get(pk=pk).is_removed
    model = {"note": Note, "list": ReadingList, "search": SavedSearch}[kind]
    return model.objects.filter(pk=pk).exists()


KINDS = ["note", "list", "comment", "search"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_plain_delete_asks_first_and_deletes_nothing(client, user, things, kind):
    client.force_login(user)
    pk = things[kind].pk
    response = client.post(_url(kind, pk), {"next": "/notes/?q=graph"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "This cannot be undone." in page
    # The page posts the same fields again, confirmed.
    assert f'action="{_url(kind, pk)}"' in page
    assert '<input type="hidden" name="next" value="/notes/?q=graph">' in page
    assert '<input type="hidden" name="confirmed" value="yes">' in page
    assert _still_there(kind, pk)


@pytest.mark.parametrize("kind", KINDS)
def test_a_confirmed_delete_deletes(client, user, things, kind):
    client.force_login(user)
    pk = things[kind].pk
    response = client.post(_url(kind, pk), {"confirmed": "yes"})
    assert response.status_code == 302
    assert not _still_there(kind, pk)


@pytest.mark.parametrize("kind", ["note", "comment"])
def test_htmx_deletes_were_asked_by_hx_confirm(client, user, things, kind):
    client.force_login(user)
    pk = things[kind].pk
    response = client.post(_url(kind, pk), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert not _still_there(kind, pk)


def test_asking_reveals_nothing_of_another_members_note(client, user, other_user):
    note = make_note(other_user, make_paper(), "private")
    client.force_login(user)
    assert client.post(_url("note", note.pk)).status_code == 404


def test_the_saved_search_delete_button_asks_with_javascript_too(client, user, things):
    client.force_login(user)
    page = client.get(reverse("alerts:searches")).content.decode()
    assert 'data-confirm="Delete the saved search “Graphs”?"' in page
