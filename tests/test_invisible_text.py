"""Text made only of zero-width spaces or blank fillers is refused, with a clear error and the
text kept: it would be saved and shown as nothing (an empty note or comment, a shared list or
saved search whose link has no text to click)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from alerts.models import SavedSearch
from annotations.models import Comment, Note, ReadingList
from tests.factories import make_paper

# A zero-width space, a zero-width joiner, a Hangul filler: none shows anything.
INVISIBLE = ["\u200b", "\u200b \u200d", "\u3164"]
# Markdown turns character references into the characters they name.
INVISIBLE_MARKDOWN = [*INVISIBLE, "&#8203;", "&#x200B; &nbsp;", "&zwnj;"]


@pytest.mark.parametrize("body", INVISIBLE_MARKDOWN)
def test_invisible_note_is_refused(client, user, body):
    paper = make_paper()
    client.force_login(user)
    response = client.post(reverse("annotations:note-add", args=[paper.pk]), {"body": body})
    assert "A note needs at least one visible character." in response.content.decode()
    assert not Note.objects.exists()


@pytest.mark.parametrize("body", INVISIBLE_MARKDOWN)
def test_invisible_comment_is_refused(client, user, body):
    paper = make_paper()
    client.force_login(user)
    response = client.post(reverse("annotations:comment-add", args=[paper.pk]), {"body": body})
    assert "A comment needs at least one visible character." in response.content.decode()
    assert not Comment.objects.exists()


def test_comment_edited_to_nothing_visible_is_refused(client, user):
    paper = make_paper()
    client.force_login(user)
    client.post(reverse("annotations:comment-add", args=[paper.pk]), {"body": "first"})
    comment = Comment.objects.get()
    response = client.post(
        reverse("annotations:comment-edit", args=[comment.pk]), {"body": "\u200b"}
    )
    assert "A comment needs at least one visible character." in response.content.decode()
    comment.refresh_from_db()
    assert comment.body == "first"


@pytest.mark.parametrize("name", INVISIBLE)
def test_invisible_list_name_is_refused(client, user, name):
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-create"),
        {"name": name, "description": "kept", "visibility": "shared"},
    )
    assert "The name needs at least one visible character." in response.content.decode()
    assert "kept" in response.content.decode()
    assert not ReadingList.objects.exists()


def test_invisible_new_list_name_from_the_paper_page_is_refused(client, user):
    paper = make_paper()
    client.force_login(user)
    response = client.post(
        reverse("annotations:paper-list-add", args=[paper.pk]),
        {"new_list_name": "\u200b"},
        follow=True,
    )
    assert "The name needs at least one visible character." in response.content.decode()
    assert not ReadingList.objects.exists()


def test_list_renamed_to_nothing_visible_is_refused(client, user):
    reading_list = ReadingList.objects.create(owner=user, name="Reading group")
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-edit", args=[reading_list.pk]),
        {"name": "\u3164", "visibility": "shared"},
    )
    assert "The name needs at least one visible character." in response.content.decode()
    reading_list.refresh_from_db()
    assert reading_list.name == "Reading group"


def test_invisible_saved_search_name_is_refused(client, user):
    client.force_login(user)
    response = client.post(reverse("alerts:save"), {"name": "\u200b", "query": "q=graph"})
    assert response.status_code == 400
    assert "Give the search a name." in response.content.decode()
    assert not SavedSearch.objects.exists()


def test_a_comment_about_character_references_is_kept(client, user):
    paper = make_paper()
    client.force_login(user)
    client.post(reverse("annotations:comment-add", args=[paper.pk]), {"body": "&amp; in titles"})
    assert Comment.objects.get().body == "&amp; in titles"
