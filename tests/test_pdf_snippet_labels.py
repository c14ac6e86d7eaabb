"""Full-text matches say so (issue 39, point 5): a result whose match includes words found only
in its PDF's text says where in the PDF they are, even when other words of the search are in
its abstract; a search whose words are all in the abstract says nothing of the PDF; and no
text a reader may not see (a member's note, highlight or comment, what a curator reads of a
PDF that could not be read) ever reaches a snippet."""

from __future__ import annotations

import re

import pytest

from papers.models import SearchChange
from pdfs.models import PdfText
from tests.factories import make_comment, make_note, make_paper, make_user
from tests.highlight_helpers import make_highlight
from tests.pdf_files import one_line_pages_pdf as paper_pdf
from tests.pdf_search_helpers import search, shown, store

pytestmark = pytest.mark.django_db

ABSTRACT = "We grow quasicrystal tilings from a seed."
# Eight pages; "ornithopter" only on the seventh, "quasicrystal" on the third as well.
PAGES = [
    "Introduction.",
    "Related work.",
    "Our quasicrystal construction.",
    "Method.",
    "Proofs.",
    "Experiments.",
    "A flapping ornithopter carries the seed.",
    "Conclusion.",
]


@pytest.fixture(autouse=True)
def _media_and_tasks(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    # Tasks run when enqueued, as the worker would run them.
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


@pytest.fixture
def tilings(django_capture_on_commit_callbacks):
    paper = make_paper("Aperiodic tilings", abstract=ABSTRACT)
    store(paper, paper_pdf(*PAGES), django_capture_on_commit_callbacks)
    return paper


def test_a_word_only_on_page_7_is_labelled_with_its_page_after_the_abstracts_match(client, tilings):
    headline = shown(search(client, "quasicrystal ornithopter"))["Aperiodic tilings"]

    assert headline == (
        "We grow <mark>quasicrystal</mark> tilings from a seed. "
        '<span class="muted">also in the PDF, p. 7:</span> A flapping '
        "<mark>ornithopter</mark> carries the seed."
    )


def test_the_label_shows_whichever_word_order_and_for_a_word_still_being_typed(client, tilings):
    for query in ("ornithopter quasicrystal", "quasicrystal ornit"):
        headline = shown(search(client, query))["Aperiodic tilings"]
        assert "<mark>quasicrystal</mark> tilings" in headline, query
        assert "also in the PDF, p. 7:</span>" in headline, query


def test_a_search_whose_words_are_all_in_the_abstract_says_nothing_of_the_pdf(client, tilings):
    # "quasicrystal" is on page 3 too: the abstract says it, so the PDF adds nothing.
    headline = shown(search(client, "quasicrystal tilings"))["Aperiodic tilings"]

    assert "PDF" not in headline
    assert headline == "We grow <mark>quasicrystal</mark> <mark>tilings</mark> from a seed."


def test_words_only_in_the_pdf_are_labelled_without_also(client, tilings):
    headline = shown(search(client, "flapping ornithopter"))["Aperiodic tilings"]

    assert headline.startswith('<span class="muted">in the PDF, p. 7:</span>')


def test_a_title_match_with_a_pdf_only_word_shows_where_in_the_pdf(client, tilings):
    headline = shown(search(client, "aperiodic ornithopter"))["Aperiodic tilings"]

    assert headline.startswith('<span class="muted">also in the PDF, p. 7:</span>')


def _words(html: str) -> set[str]:
    return set(re.sub(r"<[^>]+>", " ", html).casefold().split())


def test_what_a_reader_may_not_see_never_reaches_a_snippet(
    client, django_capture_on_commit_callbacks
):
    owner, reader = make_user("owner"), make_user("reader")
    private = make_paper("Private thoughts", abstract="We grow tilings in the dark.")
    make_note(owner, private, body="Zeppelin notes only I may read.")
    make_highlight(owner, private, exact="zeppelin", note="My zeppelin highlight.")
    make_comment(owner, private, body="A zeppelin comment for members.")
    unreadable = make_paper("Unreadable scan", abstract="We grow tilings in a scan.")
    store(unreadable, b"%PDF-1.4 not really a PDF", django_capture_on_commit_callbacks)
    text = PdfText.objects.get(pdf__paper=unreadable)
    assert text.failure  # what curators read of it names the word; no reader sees it
    PdfText.objects.filter(pk=text.pk).update(message="zeppelin: cannot read this file")
    SearchChange.objects.record([unreadable.pk])
    # The positive control: the same word in a PDF's text, which every reader may see.
    control = make_paper("Airships", abstract="We grow tilings in the air.")
    store(control, paper_pdf("Intro.", "A zeppelin rises."), django_capture_on_commit_callbacks)

    for who in (None, reader, owner):
        if who is not None:
            client.force_login(who)
        for query in ("zeppelin", "tilings zeppelin"):
            found = shown(search(client, query))
            assert list(found) == ["Airships"], (who, query)
            assert "in the PDF, p. 2:</span> A <mark>zeppelin</mark> rises." in found["Airships"]
        headlines = shown(search(client, "tilings"))
        assert set(headlines) == {"Private thoughts", "Unreadable scan", "Airships"}
        assert not any("zeppelin" in _words(h) or "PDF" in h for h in headlines.values())
