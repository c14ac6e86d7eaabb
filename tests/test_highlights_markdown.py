""" "My notes and highlights" as Markdown, per paper and per reading list: the member's own."""

from __future__ import annotations

from django.urls import reverse

from tests.factories import make_note, make_paper, make_reading_list
from tests.highlight_helpers import make_highlight


def test_paper_export_has_notes_then_quotes_with_pages(client, user):
    paper = make_paper("Deep Nets")
    make_note(user, paper, "Read section 3 again.")
    make_highlight(user, paper, exact="Line one\nline two", page=7, note="Why two?")
    make_highlight(user, paper, exact="An early point", page=2, visibility="lab")
    client.force_login(user)
    response = client.get(reverse("highlights:paper-export", args=[paper.pk]))
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="notes-deep-nets.md"'
    text = response.content.decode()
    assert text.startswith("# Deep Nets\n\n<http://testserver/papers/")
    assert (
        text.index("## Notes") < text.index("Read section 3 again.") < text.index("## Highlights")
    )
    assert "> An early point\n\n— page 2 (shared with the lab)" in text
    # The PDF's line break joined, as every quote shown to people (highlights.quotes)
    assert "> Line one line two\n\n— page 7 (private)\n\nWhy two?" in text
    assert text.index("page 2") < text.index("page 7")


def test_paper_export_leaves_out_other_members_work(client, user, other_user):
    paper = make_paper()
    make_note(other_user, paper, "bob's note")
    make_highlight(other_user, paper, exact="bob's lab quote", visibility="lab")
    make_highlight(other_user, paper, exact="bob's private quote")
    client.force_login(user)
    text = client.get(reverse("highlights:paper-export", args=[paper.pk])).content.decode()
    assert "bob" not in text and "No notes or highlights." in text


def test_list_export_in_list_order_with_own_work(client, user, other_user):
    first, second = make_paper("First"), make_paper("Second")
    shared = make_reading_list(
        other_user, "Bob's picks", papers=[second, first], visibility="shared"
    )
    make_highlight(user, first, exact="mine on first", page=3)
    make_highlight(other_user, first, exact="bob private on first")
    client.force_login(user)
    response = client.get(reverse("highlights:list-export", args=[shared.pk]))
    text = response.content.decode()
    assert text.startswith("# My notes and highlights: Bob's picks\n")
    assert text.index("## Second") < text.index("## First") < text.index("> mine on first")
    assert "bob private" not in text


def test_list_export_of_anothers_private_list_is_404(client, user, other_user):
    private = make_reading_list(other_user, "Secret", papers=[make_paper()])
    client.force_login(user)
    assert client.get(reverse("highlights:list-export", args=[private.pk])).status_code == 404


def test_list_export_costs_a_fixed_number_of_queries(client, user, django_assert_max_num_queries):
    papers = [make_paper() for _ in range(8)]
    reading_list = make_reading_list(user, papers=papers)
    for paper in papers:
        make_note(user, paper)
        make_highlight(user, paper)
    client.force_login(user)
    # session, user, the list, its papers, the member's notes, their highlights
    with django_assert_max_num_queries(6):
        response = client.get(reverse("highlights:list-export", args=[reading_list.pk]))
    text = response.content.decode()
    assert text.count("\n## Highlights") == 0  # a third-level heading in a list's document
    assert text.count("\n### Highlights") == 8


def test_export_links_on_paper_and_list_pages(client, user):
    paper = make_paper()
    reading_list = make_reading_list(user, papers=[paper])
    client.force_login(user)
    assert (
        reverse("highlights:paper-export", args=[paper.pk])
        in client.get(paper.get_absolute_url()).content.decode()
    )
    assert (
        reverse("highlights:list-export", args=[reading_list.pk])
        in client.get(reading_list.get_absolute_url()).content.decode()
    )


def test_visitor_is_sent_to_log_in(client, db):
    paper = make_paper()
    response = client.get(reverse("highlights:paper-export", args=[paper.pk]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
