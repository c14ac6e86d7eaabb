"""Private notes: adding, editing, deleting, the "My notes" page and its search."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
from django.urls import reverse
from django.utils.html import escape

from annotations.models import BODY_MAX_LENGTH, Note
from annotations.views.notes import NOTES_PER_PAGE
from tests.factories import make_note, make_paper


def test_add_note_from_paper_page_redirects_with_a_message(client, user):
    paper = make_paper()
    client.force_login(user)
    response = client.post(
        reverse("annotations:note-add", args=[paper.pk]), {"body": "Read section 3"}, follow=True
    )
    assert Note.objects.get().body == "Read section 3"
    assert response.redirect_chain[0][0].endswith(f"/papers/{paper.pk}/#paper-notes")
    assert "Note saved." in response.content.decode()


def test_several_notes_per_paper(client, user):
    paper = make_paper()
    client.force_login(user)
    for body in ["one", "two"]:
        client.post(reverse("annotations:note-add", args=[paper.pk]), {"body": body})
    assert Note.objects.filter(owner=user, paper=paper).count() == 2


def test_empty_note_is_a_form_error_and_saves_nothing(client, user):
    paper = make_paper()
    make_note(user, paper, "kept")
    client.force_login(user)
    response = client.post(reverse("annotations:note-add", args=[paper.pk]), {"body": "   "})
    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    assert list(Note.objects.values_list("body", flat=True)) == ["kept"]


def test_overlong_note_is_a_form_error_that_keeps_the_text(client, user):
    paper = make_paper()
    client.force_login(user)
    body = "x" * (BODY_MAX_LENGTH + 1)
    response = client.post(reverse("annotations:note-add", args=[paper.pk]), {"body": body})
    assert response.status_code == 200
    assert "at most" in response.content.decode()
    assert body in response.content.decode()
    assert not Note.objects.exists()


def test_note_on_unknown_paper_is_404(client, user):
    client.force_login(user)
    response = client.post(reverse("annotations:note-add", args=[999999]), {"body": "x"})
    assert response.status_code == 404
    assert not Note.objects.exists()


def test_edit_note_updates_body_and_time(client, user):
    note = make_note(user, make_paper(), "before")
    created = note.updated_at
    client.force_login(user)
    response = client.post(reverse("annotations:note-edit", args=[note.pk]), {"body": "after"})
    assert response.status_code == 302
    note.refresh_from_db()
    assert note.body == "after" and note.updated_at >= created


def test_failed_edit_keeps_the_saved_note(client, user):
    note = make_note(user, make_paper(), "precious")
    client.force_login(user)
    response = client.post(reverse("annotations:note-edit", args=[note.pk]), {"body": ""})
    assert response.status_code == 200
    note.refresh_from_db()
    assert note.body == "precious"


def test_edit_ignores_an_offsite_next_url(client, user):
    note = make_note(user, make_paper())
    client.force_login(user)
    response = client.post(
        reverse("annotations:note-edit", args=[note.pk]),
        {"body": "x", "next": "https://evil.example/"},
    )
    assert response["Location"].startswith(note.paper.get_absolute_url())


@pytest.mark.parametrize("target", ["/notes/?q=sampling", "http://testserver/notes/?q=sampling"])
def test_edit_and_delete_return_to_a_next_url_on_this_site(client, user, target):
    note, other = make_note(user, make_paper()), make_note(user, make_paper())
    client.force_login(user)
    edit_url = reverse("annotations:note-edit", args=[note.pk])
    form = client.get(edit_url, {"next": target, "confirmed": "yes"})
    assert form.status_code == 200
    assert f'name="next" value="{escape(target)}"' in form.content.decode()
    edited = client.post(edit_url, {"body": "changed", "next": target})
    assert (edited.status_code, edited["Location"]) == (302, target)
    deleted = client.post(
        reverse("annotations:note-delete", args=[other.pk]), {"next": target, "confirmed": "yes"}
    )
    assert (deleted.status_code, deleted["Location"]) == (302, target)


def test_delete_note(client, user):
    note = make_note(user, make_paper())
    client.force_login(user)
    response = client.post(reverse("annotations:note-delete", args=[note.pk]), {"confirmed": "yes"})
    assert response.status_code == 302
    assert not Note.objects.exists()


def test_htmx_add_returns_the_notes_fragment_with_its_message(client, user):
    paper = make_paper()
    client.force_login(user)
    response = client.post(
        reverse("annotations:note-add", args=[paper.pk]),
        {"body": "via htmx"},
        HTTP_HX_REQUEST="true",
    )
    content = response.content.decode()
    assert response.status_code == 200
    assert content.lstrip().startswith("<section") and 'id="paper-notes"' in content
    assert "via htmx" in content and "Note saved." in content
    assert "<html" not in content


def test_my_notes_lists_only_own_notes(client, user, other_user):
    paper = make_paper("Shared title")
    make_note(user, paper, "mine")
    make_note(other_user, paper, "not mine")
    client.force_login(user)
    content = client.get(reverse("annotations:notes")).content.decode()
    assert "mine" in content and "not mine" not in content


def test_my_notes_search_covers_body_and_paper_title(client, user):
    make_note(user, make_paper("Diffusion models"), "about sampling")
    make_note(user, make_paper("Transformers"), "mentions diffusion once")
    make_note(user, make_paper("Graphs"), "unrelated")
    client.force_login(user)
    content = client.get(reverse("annotations:notes"), {"q": "diffusion"}).content.decode()
    assert "about sampling" in content and "mentions diffusion once" in content
    assert "unrelated" not in content


def test_my_notes_is_paginated_with_bounded_queries(client, user, django_assert_max_num_queries):
    paper = make_paper()
    for n in range(45):
        make_note(user, paper, f"note {n}")
    client.force_login(user)
    # session, user, count, page of notes with their papers, the header's unread notifications
    with django_assert_max_num_queries(5):
        response = client.get(reverse("annotations:notes"), {"page": 3})
    assert response.status_code == 200
    assert response.context["page"].number == 3
    assert len(response.context["page"].object_list) == 5
    # Newest first: the third page holds the five oldest notes.
    content = response.content.decode()
    assert all(f"note {n}<" in content for n in range(5))
    assert "note 5<" not in content
    junk = client.get(reverse("annotations:notes"), {"page": "junk"})
    assert junk.status_code == 200
    assert junk.context["page"].number == 1 and "note 44<" in junk.content.decode()


def test_my_notes_escapes_hostile_note(client, user):
    make_note(user, make_paper(), "<img src=x onerror=alert(1)>")
    client.force_login(user)
    content = client.get(reverse("annotations:notes")).content.decode()
    assert "<img src=x" not in content
    assert "&lt;img src=x onerror=alert(1)&gt;" in content


def test_htmx_cancel_puts_the_note_back_in_place_and_the_focus_on_edit(client, user):
    # A link to the paper page would reload it, losing drafts in the page's other boxes.
    note = make_note(user, make_paper(), "unchanged")
    client.force_login(user)
    url = reverse("annotations:note-edit", args=[note.pk])
    form = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert f'hx-get="{url}?cancel=1"' in form
    content = client.get(url + "?cancel=1", HTTP_HX_REQUEST="true").content.decode()
    assert "unchanged" in content and "<textarea" not in content and "<html" not in content
    assert re.search(r"<a [^>]*autofocus[^>]*>Edit</a>", content)


def test_htmx_edit_swaps_the_note_for_its_form_and_back(client, user):
    note = make_note(user, make_paper(), "draft")
    client.force_login(user)
    url = reverse("annotations:note-edit", args=[note.pk])
    form = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert f'id="note-{note.pk}"' in form and "<textarea" in form and "<html" not in form
    # The keyboard lands in the text (htmx focuses [autofocus]), not back on <body>.
    assert re.search(r"<textarea[^>]*autofocus", form)
    new_note_form = client.get(note.paper.get_absolute_url()).content.decode()
    assert not re.search(r"<textarea[^>]*autofocus", new_note_form)
    invalid = client.post(url, {"body": ""}, HTTP_HX_REQUEST="true").content.decode()
    assert "This field is required." in invalid
    saved = client.post(url, {"body": "final"}, HTTP_HX_REQUEST="true").content.decode()
    assert "Note updated." in saved and "final" in saved and "<textarea" not in saved
    note.refresh_from_db()
    assert note.body == "final"


def test_every_note_is_reachable_through_the_pages_next_links(client, user):
    client.force_login(user)
    total = NOTES_PER_PAGE + 5
    for n in range(total):
        Note.objects.create(owner=user, paper=make_paper(f"Paper {n}"), body=f"note number {n}")
    url, seen = "http://testserver" + reverse("annotations:notes"), set()
    for _ in range(2):  # 25 notes: page 1, then its Next link to page 2
        parts = urlsplit(url)
        html = client.get(parts.path, parse_qs(parts.query)).content.decode()
        seen |= set(re.findall(r"note number (\d+)", html))
        link = re.search(r'<a href="([^"]*)">Next</a>', html)
        if not link:
            break
        # Resolved and parsed the way a browser and Django would.
        url = urljoin(url, unescape(link.group(1)))
    assert seen == {str(n) for n in range(total)}


def test_the_last_edited_note_comes_first_on_my_notes_and_on_the_paper(client, user):
    paper = make_paper()
    edited, untouched = make_note(user, paper, "older note"), make_note(user, paper, "newer note")
    client.force_login(user)
    client.post(reverse("annotations:note-edit", args=[edited.pk]), {"body": "older note, edited"})
    for url in [reverse("annotations:notes"), paper.get_absolute_url()]:
        response = client.get(url)
        assert response.status_code == 200
        content = response.content.decode()
        assert content.index("older note, edited") < content.index(untouched.body), url


def test_delete_with_a_next_that_is_not_a_url_returns_to_the_paper(client, user):
    note = make_note(user, make_paper())
    client.force_login(user)
    response = client.post(
        reverse("annotations:note-delete", args=[note.pk]), {"next": "x", "confirmed": "yes"}
    )
    location = note.paper.get_absolute_url() + "#paper-notes"
    assert (response.status_code, response["Location"]) == (302, location)
