"""The reader's JSON contract for highlights (docs/highlights.md): list, create, edit, delete,
re-anchor; who sees what."""

from __future__ import annotations

import pytest
from django.urls import reverse

from highlights.models import Highlight, HighlightPreference
from tests.factories import make_paper, make_user
from tests.highlight_helpers import SENTENCE, highlight_post, make_highlight, store_pdf_row

ITEM_KEYS = {
    "id", "page", "exact", "quote", "prefix", "suffix", "start", "end", "note", "visibility",
    "author", "mine", "can_anchor", "orphaned", "needs_anchor", "replies", "thread_url",
    "created_at",
}  # fmt: skip


def list_url(paper) -> str:
    return reverse("highlights:list", args=[paper.pk])


@pytest.fixture
def paper(db):
    return make_paper()


def test_member_creates_a_highlight_and_gets_the_item(client, user, paper):
    client.force_login(user)
    response = client.post(list_url(paper), highlight_post(note="Key idea"))
    assert response.status_code == 201
    item = response.json()
    assert set(item) == ITEM_KEYS
    highlight = Highlight.objects.get()
    assert item["id"] == highlight.pk
    assert (item["page"], item["exact"], item["start"], item["end"]) == (
        3,
        SENTENCE,
        120,
        120 + len(SENTENCE),
    )
    assert (item["prefix"], item["suffix"]) == ("In this paper ", " It works.")
    assert (item["note"], item["visibility"], item["author"]) == ("Key idea", "private", "alice")
    assert item["mine"] is True
    assert (item["orphaned"], item["needs_anchor"], item["replies"]) == (False, False, 0)
    assert item["thread_url"] is None  # a private highlight has no discussion


def test_list_gives_own_and_lab_highlights_never_anothers_private(client, user, other_user, paper):
    mine = make_highlight(user, paper, visibility="private")
    lab = make_highlight(other_user, paper, visibility="lab", page=2)
    make_highlight(other_user, paper, exact="Bob's private thought", visibility="private")
    client.force_login(user)
    data = client.get(list_url(paper)).json()
    assert [item["id"] for item in data["highlights"]] == [mine.pk, lab.pk]
    assert "Bob's private thought" not in str(data)
    by_id = {item["id"]: item for item in data["highlights"]}
    assert by_id[lab.pk]["mine"] is False and by_id[lab.pk]["author"] == "bob"
    assert data["can_annotate"] is True


def test_list_does_not_mix_papers(client, user, paper):
    make_highlight(user, make_paper())
    client.force_login(user)
    assert client.get(list_url(paper)).json()["highlights"] == []


def test_visitor_sees_no_highlights_as_visitors_see_no_comments(client, user, paper):
    make_highlight(user, paper, visibility="lab")
    data = client.get(list_url(paper)).json()
    assert data == {"highlights": [], "default_visibility": "private", "can_annotate": False}


def test_visitor_cannot_create(client, paper):
    response = client.post(list_url(paper), highlight_post())
    assert response.status_code == 403
    assert "Log in" in response.json()["errors"]["__all__"][0]
    assert not Highlight.objects.exists()


def test_unknown_paper_is_404(client, user):
    client.force_login(user)
    assert client.get(reverse("highlights:list", args=[987654])).status_code == 404


def test_list_runs_a_fixed_number_of_queries(client, user, other_user, paper,
                                             django_assert_max_num_queries):  # fmt: skip
    for page in range(1, 6):
        make_highlight(user, paper, page=page)
        make_highlight(other_user, paper, page=page, visibility="lab")
    client.force_login(user)
    # session and user, the paper with its PDF, the highlights with authors and reply
    # counts, the member's default visibility
    with django_assert_max_num_queries(5):
        data = client.get(list_url(paper)).json()
    assert len(data["highlights"]) == 10


def test_chosen_visibility_becomes_the_default(client, user, paper):
    client.force_login(user)
    assert client.get(list_url(paper)).json()["default_visibility"] == "private"
    client.post(list_url(paper), highlight_post(visibility="lab"))
    assert client.get(list_url(paper)).json()["default_visibility"] == "lab"
    assert HighlightPreference.objects.get(user=user).default_visibility == "lab"


def test_visibility_left_out_is_the_remembered_default(client, user, paper):
    HighlightPreference.objects.create(user=user, default_visibility="lab")
    client.force_login(user)
    data = highlight_post()
    del data["visibility"]
    assert client.post(list_url(paper), data).json()["visibility"] == "lab"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("page", "0", "from 1"),
        ("page", "-1", "from 1"),
        ("page", "10001", "to 10,000"),
        ("page", "٣", "whole number"),
        ("page", "99999999999999999999999", "whole number"),
        ("start", "1.5", "whole number"),
        ("exact", "", "required"),
        ("exact", "\u200b\u200b", "shows nothing"),
        ("exact", "x" * 2001, "at most 2000"),
        ("prefix", "p" * 33, "at most 32"),
        ("suffix", "s" * 33, "at most 32"),
        ("note", "n" * 5001, "at most 5000"),
        ("note", "see \u202egnp.exe", "bidirectional"),
        ("note", "see &#8238;gnp.exe", "bidirectional"),
        ("exact", "abc\u2066def", "bidirectional"),
        ("visibility", "public", "not one of the available choices"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, user, paper, field, value, message):
    client.force_login(user)
    data = highlight_post(**{field: value})
    if field == "exact" and value:
        data["end"] = str(int(data["start"]) + len(value))
    response = client.post(list_url(paper), data)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert message in " ".join(errors[field]).replace(",", "") or message in " ".join(errors[field])
    assert not Highlight.objects.exists()


def test_span_must_hold_the_quote_in_code_points(client, user, paper):
    client.force_login(user)
    quote = "ﬁnd 𝑥 in Ω"  # a ligature and a character outside the BMP count one each
    ok = client.post(list_url(paper), highlight_post(exact=quote, start="5", end=str(5 + 10)))
    assert ok.status_code == 201, ok.json()
    wrong = client.post(list_url(paper), highlight_post(exact=quote, start="5", end="16"))
    assert wrong.status_code == 400
    assert "code points" in wrong.json()["errors"]["end"][0]
    backwards = client.post(list_url(paper), highlight_post(start="50", end="40"))
    assert "after the start" in backwards.json()["errors"]["end"][0]


def test_highlight_records_the_pdf_it_was_made_on(client, user, paper):
    store_pdf_row(paper, "1" * 64)
    client.force_login(user)
    item = client.post(list_url(paper), highlight_post()).json()
    assert Highlight.objects.get().pdf_sha256 == "1" * 64
    assert item["needs_anchor"] is False


def test_new_pdf_version_asks_for_a_new_anchor(client, user, paper):
    store_pdf_row(paper, "1" * 64)
    highlight = make_highlight(user, paper, pdf_sha256="1" * 64)
    store_pdf_row(paper, "2" * 64)  # a new arXiv version replaced the file
    client.force_login(user)
    (item,) = client.get(list_url(paper)).json()["highlights"]
    assert item["id"] == highlight.pk and item["needs_anchor"] is True


def test_owner_edits_note_and_visibility(client, user, paper):
    highlight = make_highlight(user, paper, note="old")
    client.force_login(user)
    response = client.post(
        reverse("highlights:edit", args=[highlight.pk]), {"note": "new", "visibility": "lab"}
    )
    assert response.status_code == 200
    assert (response.json()["note"], response.json()["visibility"]) == ("new", "lab")
    highlight.refresh_from_db()
    assert (highlight.note, highlight.visibility, highlight.exact) == ("new", "lab", SENTENCE)
    assert HighlightPreference.objects.get(user=user).default_visibility == "lab"


def test_edit_of_the_note_alone_keeps_the_visibility(client, user, paper):
    highlight = make_highlight(user, paper, visibility="lab")
    client.force_login(user)
    client.post(reverse("highlights:edit", args=[highlight.pk]), {"note": "only this"})
    highlight.refresh_from_db()
    assert (highlight.note, highlight.visibility) == ("only this", "lab")


def test_bad_edit_is_a_400_and_changes_nothing(client, user, paper):
    highlight = make_highlight(user, paper, note="kept")
    client.force_login(user)
    response = client.post(
        reverse("highlights:edit", args=[highlight.pk]), {"note": "x\u202e", "visibility": "lab"}
    )
    assert response.status_code == 400 and "note" in response.json()["errors"]
    highlight.refresh_from_db()
    assert (highlight.note, highlight.visibility) == ("kept", "private")


@pytest.mark.parametrize("action", ["edit", "delete"])
@pytest.mark.parametrize("visibility", ["private", "lab"])
def test_only_the_owner_edits_or_deletes_others_get_404(client, user, other_user, paper,
                                                        action, visibility):  # fmt: skip
    highlight = make_highlight(other_user, paper, note="bob's", visibility=visibility)
    client.force_login(user)
    response = client.post(reverse(f"highlights:{action}", args=[highlight.pk]), {"note": "x"})
    assert response.status_code == 404
    highlight.refresh_from_db()
    assert highlight.note == "bob's"


def test_owner_deletes(client, user, paper):
    highlight = make_highlight(user, paper)
    client.force_login(user)
    response = client.post(reverse("highlights:delete", args=[highlight.pk]))
    assert response.json() == {"deleted": highlight.pk}
    assert not Highlight.objects.exists()


def test_endpoints_refuse_get(client, user, paper):
    highlight = make_highlight(user, paper)
    client.force_login(user)
    for action in ("edit", "delete", "anchor"):
        assert client.get(reverse(f"highlights:{action}", args=[highlight.pk])).status_code == 405
    assert Highlight.objects.filter(pk=highlight.pk).exists()


def anchor_post(**overrides) -> dict[str, str]:
    data = {"page": "4", "start": "7", "end": str(7 + len(SENTENCE)), "prefix": "a", "suffix": "b"}
    data.update(overrides)
    return data


def test_the_author_re_anchors_a_lab_highlight_another_member_may_not(
    client, user, other_user, paper
):
    store_pdf_row(paper, "1" * 64)
    highlight = make_highlight(
        other_user, paper, visibility="lab", note="bob's", pdf_sha256="0" * 64
    )
    client.force_login(user)
    response = client.post(reverse("highlights:anchor", args=[highlight.pk]), anchor_post())
    assert response.status_code == 404
    highlight.refresh_from_db()
    assert (highlight.page, highlight.pdf_sha256, highlight.anchored_by) == (1, "0" * 64, None)
    client.force_login(other_user)
    response = client.post(reverse("highlights:anchor", args=[highlight.pk]), anchor_post())
    assert response.status_code == 200
    item = response.json()
    assert (item["page"], item["start"], item["prefix"], item["suffix"]) == (4, 7, "a", "b")
    assert (item["needs_anchor"], item["orphaned"]) == (False, False)
    highlight.refresh_from_db()
    assert (highlight.note, highlight.visibility, highlight.author) == ("bob's", "lab", other_user)
    assert (highlight.exact, highlight.pdf_sha256) == (SENTENCE, "1" * 64)
    assert highlight.anchored_by == other_user and highlight.anchored_at is not None


def test_anchor_changes_only_selectors(client, user, paper):
    highlight = make_highlight(user, paper, note="mine")
    client.force_login(user)
    data = anchor_post(note="changed", visibility="lab", exact="Other words.")
    client.post(reverse("highlights:anchor", args=[highlight.pk]), data)
    highlight.refresh_from_db()
    assert (highlight.note, highlight.visibility, highlight.exact) == ("mine", "private", SENTENCE)
    assert highlight.page == 4


def test_anchor_that_does_not_hold_the_quote_is_refused(client, user, paper):
    highlight = make_highlight(user, paper)
    client.force_login(user)
    response = client.post(reverse("highlights:anchor", args=[highlight.pk]), anchor_post(end="8"))
    assert response.status_code == 400 and "end" in response.json()["errors"]
    highlight.refresh_from_db()
    assert highlight.page == 1


def test_orphaned_highlight_is_kept_and_listed(client, user, paper):
    store_pdf_row(paper, "2" * 64)
    highlight = make_highlight(user, paper, pdf_sha256="1" * 64, page=5)
    client.force_login(user)
    response = client.post(reverse("highlights:anchor", args=[highlight.pk]), {"orphaned": "1"})
    assert response.status_code == 200
    assert (response.json()["orphaned"], response.json()["needs_anchor"]) == (True, False)
    (item,) = client.get(list_url(paper)).json()["highlights"]
    assert (item["exact"], item["page"], item["orphaned"]) == (SENTENCE, 5, True)


def test_another_members_private_highlight_cannot_be_anchored(client, user, other_user, paper):
    highlight = make_highlight(other_user, paper, visibility="private")
    client.force_login(user)
    response = client.post(reverse("highlights:anchor", args=[highlight.pk]), anchor_post())
    assert response.status_code == 404
    highlight.refresh_from_db()
    assert highlight.page == 1


def test_unknown_highlight_is_404(client, user):
    client.force_login(user)
    for action in ("edit", "delete", "anchor"):
        response = client.post(reverse(f"highlights:{action}", args=[99999]), {"orphaned": "1"})
        assert response.status_code == 404


def test_posts_need_the_csrf_token(user, paper):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post(list_url(paper), highlight_post()).status_code == 403
    client.get(reverse("papers:detail", args=[paper.pk]))
    token = client.cookies["csrftoken"].value
    response = client.post(list_url(paper), highlight_post(), headers={"X-CSRFToken": token})
    assert response.status_code == 201


def test_another_member_is_a_user_not_a_visitor(client, paper):
    carol = make_user("carol")
    client.force_login(carol)
    assert client.get(list_url(paper)).json()["can_annotate"] is True


def test_page_past_a_known_page_count_is_refused():
    from highlights.forms import HighlightForm
    from pdfs.pages import StoredPages

    five = StoredPages(count=5, texts=[], truncated=False)
    assert HighlightForm(highlight_post(page="5"), pages=five).is_valid()
    form = HighlightForm(highlight_post(page="6"), pages=five)
    assert not form.is_valid()
    assert form.errors["page"] == ["This PDF has 5 pages: give a page from 1 to 5."]
