"""`notes=mine` on a BibTeX or RIS export: the member's own notes and highlights in each
entry's `note` / `N1`, never another member's."""

from __future__ import annotations

from django.urls import reverse

from annotations import export_sources
from tests.factories import make_note, make_paper, make_reading_list
from tests.highlight_helpers import make_highlight


def _list_with_annotations(user, other_user):
    paper = make_paper("Annotated")
    reading_list = make_reading_list(user, papers=[paper, make_paper("Bare")])
    make_note(user, paper, "Strong baseline.")
    make_highlight(user, paper, exact="the key result", page=4, note="check it")
    make_highlight(other_user, paper, exact="bob's lab quote", visibility="lab")
    make_highlight(other_user, paper, exact="bob's private quote")
    make_note(other_user, paper, "bob's note")
    return reading_list


def test_bibtex_with_my_notes_has_notes_and_quotes_with_pages(client, user, other_user):
    reading_list = _list_with_annotations(user, other_user)
    client.force_login(user)
    url = reverse("annotations:list-export-bibtex", args=[reading_list.pk])
    text = b"".join(client.get(url, {"notes": "mine"}).streaming_content).decode()
    assert "note = {Strong baseline. p. 4: “the key result” — check it}" in text
    assert text.count("note = ") == 1  # the bare paper has none
    assert "bob" not in text


def test_ris_with_my_notes_has_an_n1_line(client, user, other_user):
    reading_list = _list_with_annotations(user, other_user)
    client.force_login(user)
    url = reverse("annotations:list-export-ris", args=[reading_list.pk])
    text = b"".join(client.get(url, {"notes": "mine"}).streaming_content).decode()
    assert "N1  - Strong baseline. p. 4: “the key result” — check it\r\n" in text
    assert "bob" not in text


def test_without_the_option_no_notes(client, user, other_user):
    reading_list = _list_with_annotations(user, other_user)
    client.force_login(user)
    url = reverse("annotations:list-export-bibtex", args=[reading_list.pk])
    text = b"".join(client.get(url).streaming_content).decode()
    assert "note = " not in text and "Strong baseline" not in text


def test_a_shared_list_exports_the_readers_notes_not_the_owners(client, user, other_user):
    paper = make_paper()
    shared = make_reading_list(other_user, papers=[paper], visibility="shared")
    make_note(other_user, paper, "owner's private note")
    make_highlight(user, paper, exact="reader's quote")
    client.force_login(user)
    url = reverse("annotations:list-export-ris", args=[shared.pk])
    text = b"".join(client.get(url, {"notes": "mine"}).streaming_content).decode()
    assert "reader's quote" in text and "owner's private note" not in text


def test_visitor_asking_for_notes_gets_none(client, user):
    paper = make_paper()
    make_note(user, paper, "private words")
    response = client.get(reverse("annotations:papers-export", args=["bib"]), {"notes": "mine"})
    assert "private words" not in b"".join(response.streaming_content).decode()


def test_background_export_keeps_the_option(user, other_user):
    reading_list = _list_with_annotations(user, other_user)
    path = reverse("annotations:list-export-ris", args=[reading_list.pk]) + "?notes=mine"
    source, extension = export_sources.source_for_path(user, path)
    rows = [row for batch in source.batches() for row in batch]
    assert extension == "ris" and source.name.endswith("-with-notes")
    assert rows[0].paper.note.startswith("Strong baseline.")
