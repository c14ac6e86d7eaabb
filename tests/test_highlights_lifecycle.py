"""Highlights outlive what happens to their paper's PDF and follow a merged paper."""

from __future__ import annotations

import pytest
from django.urls import reverse

from highlights.models import Highlight
from papers.services import merge_papers
from pdfs.models import PaperPdf
from tests.factories import make_paper
from tests.highlight_helpers import make_highlight, store_pdf_row

pytestmark = pytest.mark.django_db


def test_merging_papers_moves_highlights_with_their_threads(client, user, other_user):
    kept, duplicate = make_paper("Kept"), make_paper("Duplicate")
    client.force_login(user)
    data = {"page": "2", "exact": "a quote", "start": "0", "end": "7", "visibility": "lab"}
    client.post(reverse("highlights:list", args=[duplicate.pk]), data)
    private = make_highlight(other_user, duplicate)
    merge_papers(target=kept, others=[duplicate])
    moved = Highlight.objects.get(exact="a quote")
    assert moved.paper_id == kept.pk and moved.comment.paper_id == kept.pk
    private.refresh_from_db()
    assert (private.paper_id, private.author) == (kept.pk, other_user)
    items = client.get(reverse("highlights:list", args=[kept.pk])).json()["highlights"]
    assert [item["id"] for item in items] == [moved.pk]
    assert items[0]["thread_url"].startswith(kept.get_absolute_url())


def test_deleting_the_pdf_keeps_highlights(client, user):
    paper = make_paper()
    store_pdf_row(paper, "1" * 64)
    highlight = make_highlight(user, paper, pdf_sha256="1" * 64, note="kept")
    PaperPdf.objects.filter(paper=paper).delete()
    client.force_login(user)
    (item,) = client.get(reverse("highlights:list", args=[paper.pk])).json()["highlights"]
    assert (item["id"], item["note"], item["needs_anchor"]) == (highlight.pk, "kept", False)


def test_a_new_pdf_after_deletion_asks_for_a_new_anchor(client, user):
    paper = make_paper()
    highlight = make_highlight(user, paper, pdf_sha256="1" * 64)
    PaperPdf.objects.filter(paper=paper).delete()
    store_pdf_row(paper, "3" * 64)
    client.force_login(user)
    (item,) = client.get(reverse("highlights:list", args=[paper.pk])).json()["highlights"]
    assert item["id"] == highlight.pk and item["needs_anchor"] is True


def test_deleting_the_author_deletes_their_highlights_only(user, other_user):
    paper = make_paper()
    make_highlight(user, paper)
    theirs = make_highlight(other_user, paper)
    user.delete()
    assert list(Highlight.objects.all()) == [theirs]
