"""The paper page's Highlights section: what the member may see, each opening the reader."""

from __future__ import annotations

from papers.search.sync import current_searcher
from tests.factories import make_paper, make_user
from tests.highlight_helpers import make_highlight, store_pdf_row


def test_panel_lists_own_and_lab_highlights_with_reader_links(client, user, other_user):
    paper = make_paper()
    mine = make_highlight(user, paper, exact="my own quote", page=2, note="my *margin* note")
    lab = make_highlight(other_user, paper, exact="bob's shared quote", page=9, visibility="lab")
    make_highlight(other_user, paper, exact="bob's private quote", visibility="private")
    client.force_login(user)
    page = client.get(paper.get_absolute_url()).content.decode()
    assert "my own quote" in page and "bob&#x27;s shared quote" in page
    assert "bob&#x27;s private quote" not in page
    assert f'href="/papers/{paper.pk}/read/#highlight-{mine.pk}">page 2</a>' in page
    assert f'href="/papers/{paper.pk}/read/#highlight-{lab.pk}">page 9</a>' in page
    assert "my <em>margin</em> note" in page
    section = page[page.index('id="paper-highlights"') :]
    assert "<strong>bob</strong>" in section[: section.index("</section>")]


def test_panel_marks_orphaned_highlights(client, user):
    paper = make_paper()
    make_highlight(user, paper, orphaned=True)
    client.force_login(user)
    assert (
        "orphaned: not found in the present PDF"
        in client.get(paper.get_absolute_url()).content.decode()
    )


def test_panel_marks_highlights_made_on_an_earlier_pdf(client, user):
    paper = make_paper()
    store_pdf_row(paper, "2" * 64)
    make_highlight(user, paper, pdf_sha256="1" * 64)
    client.force_login(user)
    page = client.get(paper.get_absolute_url()).content.decode()
    assert "made on an earlier version of the PDF" in page


def test_visitor_sees_no_highlights_section(client, user):
    paper = make_paper()
    make_highlight(user, paper, exact="lab words", visibility="lab")
    page = client.get(paper.get_absolute_url()).content.decode()
    assert "lab words" not in page and 'id="paper-highlights"' not in page


def test_panel_highlights_cost_one_query_however_many(client, user):
    paper = make_paper()
    client.force_login(user)
    current_searcher()
    client.get(paper.get_absolute_url())  # the session's first request writes nothing more

    def count() -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as queries:
            client.get(paper.get_absolute_url())
        return len(queries)

    before = count()
    others = [make_user(f"member{n}") for n in range(3)]
    for n in range(12):
        make_highlight(others[n % 3], paper, page=n + 1, visibility="lab")
    after = count()
    assert after == before  # the one highlights query reads 0 or 12 rows with their authors
    page = client.get(paper.get_absolute_url()).content.decode()
    assert page.count('class="highlight"') == 12


def test_no_section_without_highlights_but_the_export_link_stays(client, user):
    paper = make_paper()
    client.force_login(user)
    page = client.get(paper.get_absolute_url()).content.decode()
    assert 'id="paper-highlights"' not in page
    assert f'href="/papers/{paper.pk}/my-notes.md"' in page
