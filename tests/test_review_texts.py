"""Reviews you can read: an OpenReview forum's reviews, meta-review and decision stored with
their texts (tests/data/openreview/iclr2024_forum_review_texts_v2.json, written from API v2's
documented note format: `/notes?id=...&details=replies`), updated in place by a re-import,
shown folded on the paper page with the site's Markdown and math, a members-only note to
members alone (and nowhere else); the mean rating on result rows sorted by it and its range
filter, whose counts agree with the database."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
import respx
from django.contrib.auth.models import User
from django.db.models import Count
from django.http import QueryDict
from django.urls import reverse

from alerts.queries import normalise_query
from papers.filters import PaperFilter
from papers.importing.pipeline import import_paths, import_records
from papers.models import Paper, Review
from papers.sources.client import FetchClient, service
from papers.sources.openreview_api import fetch_forum

FORUM = (
    Path(__file__).resolve().parent
    / "data"
    / "openreview"
    / ("iclr2024_forum_review_texts_v2.json")
)
PRIVATE_WORDS = "Quokkaesque reservations only the committee reads"
PUBLIC_WORDS = "Elegant."


def forum_notes() -> dict:
    return json.loads(FORUM.read_text(encoding="utf-8"))


def import_forum(tmp_path: Path, notes: dict, folder: str = "a", indent: int | None = None) -> str:
    """Import `notes` as the saved file (always the same source: the file's name); what the
    report says of its reviews. A file laid out another way (`indent`) is read again."""
    path = tmp_path / folder / FORUM.name
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(notes, ensure_ascii=False, indent=indent), encoding="utf-8")
    counts = import_paths([str(path)]).total
    return (
        f"{counts.reviews_created} new, {counts.reviews_updated} updated, "
        f"{counts.reviews_unchanged} unchanged"
    )


def replies(notes: dict) -> dict[str, dict]:
    return {reply["id"]: reply for reply in notes["notes"][0]["details"]["replies"]}


def with_private_review(notes: dict) -> dict:
    """The forum with the third review readable only by the venue's committee."""
    third = replies(notes)["Rv_ccc3"]
    third["readers"] = [
        "ICLR.cc/2024/Conference/Program_Chairs",
        "ICLR.cc/2024/Conference/Submission42/Area_Chairs",
    ]
    third["content"]["weaknesses"] = {"value": PRIVATE_WORDS}
    return notes


# --- Stored -------------------------------------------------------------------------------


def test_a_forums_reviews_meta_review_and_decision_are_stored_with_their_texts(db, tmp_path):
    assert import_forum(tmp_path, forum_notes()) == "5 new, 0 updated, 0 unchanged"
    paper = Paper.objects.get(forum_id="F0rum_42")
    stored = {review.note_id: review for review in paper.reviews.all()}
    assert set(stored) == {"Rv_aaa1", "Rv_bbb2", "Rv_ccc3", "Mr_eee5", "Dc_fff6"}  # no comment

    first = stored["Rv_aaa1"]
    assert (first.kind, first.rating, first.confidence) == ("review", 6.0, 4.0)
    assert first.rating_label == "6: marginally above the acceptance threshold"
    # ICLR's labels are long: kept whole.
    assert (
        first.confidence_label
        == (replies(forum_notes())["Rv_aaa1"]["content"]["confidence"]["value"])
    )
    assert first.reviewer == "Reviewer a1Bc"
    assert (first.visibility, first.readers) == ("public", ["everyone"])
    assert first.created == datetime(2023, 10, 22, 18, 40, tzinfo=UTC)
    assert first.modified == datetime(2023, 11, 21, 20, 53, 20, tzinfo=UTC)
    # The texts in the form's order; the pledge, the ethics flag and the scores are not texts.
    assert [name for name, _ in first.texts] == [
        "summary",
        "soundness",
        "presentation",
        "contribution",
        "strengths",
        "weaknesses",
        "questions",
    ]
    assert first.texts[4] == ["strengths", "- A **tight** bound.\n- Clear proofs."]
    # Written in another order, read in the form's.
    assert [name for name, _ in stored["Rv_bbb2"].texts] == [
        "summary",
        "strengths",
        "weaknesses",
        "questions",
    ]

    meta = stored["Mr_eee5"]
    assert (meta.kind, meta.reviewer, meta.rating) == ("meta_review", "Area Chair Kp3m", None)
    # A field only the programme chairs may read is not kept, whoever reads the note.
    assert [name for name, _ in meta.texts] == [
        "metareview",
        "justification_for_why_not_higher_score",
        "justification_for_why_not_lower_score",
    ]
    decision = stored["Dc_fff6"]
    assert (decision.kind, decision.decision) == ("decision", "Accept (poster)")
    assert decision.texts == [["comment", "Congratulations."]]

    assert paper.mean_rating == pytest.approx((6 + 8 + 5) / 3)
    assert (paper.review_count, paper.decision) == (3, "Accept (poster)")


def test_a_re_import_updates_the_reviews_in_place_and_adds_none(db, tmp_path):
    import_forum(tmp_path, forum_notes())
    ids = dict(Review.objects.values_list("note_id", "pk"))
    assert import_forum(tmp_path, forum_notes(), "b", indent=1) == "0 new, 0 updated, 5 unchanged"

    notes = forum_notes()
    first = replies(notes)["Rv_aaa1"]
    first["content"]["summary"] = {"value": "Revised after the rebuttal."}
    first["content"]["rating"] = {"value": "8: accept, good paper"}
    first["mdate"] = 1701000000000
    assert import_forum(tmp_path, notes, "c") == "0 new, 1 updated, 4 unchanged"

    assert dict(Review.objects.values_list("note_id", "pk")) == ids
    review = Review.objects.get(note_id="Rv_aaa1")
    assert review.texts[0] == ["summary", "Revised after the rebuttal."]
    assert (review.rating, review.rating_label) == (8.0, "8: accept, good paper")
    assert Paper.objects.get(forum_id="F0rum_42").mean_rating == pytest.approx(7.0)


@respx.mock
def test_a_forum_fetched_from_openreview_stores_its_texts_and_readers(db):
    notes = with_private_review(forum_notes())
    respx.get("https://api2.openreview.net/notes").mock(
        return_value=httpx.Response(200, json=notes)
    )
    fetch = fetch_forum("F0rum_42", client=lambda name: FetchClient(service(name)))
    assert fetch is not None and fetch.source == "openreview:ICLR.cc/2024/Conference"
    import_records(fetch.records, source=fetch.source)
    assert Review.objects.filter(source=fetch.source).count() == 5
    private = Review.objects.get(note_id="Rv_ccc3")
    assert private.visibility == "members"
    assert private.readers == [
        "ICLR.cc/2024/Conference/Program_Chairs",
        "ICLR.cc/2024/Conference/Submission42/Area_Chairs",
    ]
    assert ["weaknesses", PRIVATE_WORDS] in private.texts


def test_ratings_that_are_no_number_are_kept_as_text_and_reported(db, tmp_path):
    notes = forum_notes()
    replies(notes)["Rv_bbb2"]["content"]["rating"] = {"value": "accept, good paper"}
    replies(notes)["Rv_ccc3"]["content"]["confidence"] = {"value": ["3"]}
    path = tmp_path / FORUM.name
    path.write_text(json.dumps(notes), encoding="utf-8")
    report = import_paths([str(path)])
    cleaned = report.for_file(str(path)).cleaned
    assert any("reply Rv_bbb2: content.rating 'accept, good paper'" in line for line in cleaned)
    assert any("reply Rv_ccc3: content.confidence is not a number" in line for line in cleaned)
    second = Review.objects.get(note_id="Rv_bbb2")
    assert (second.rating, second.rating_label) == (None, "accept, good paper")
    assert Review.objects.get(note_id="Rv_ccc3").confidence is None
    assert Paper.objects.get(forum_id="F0rum_42").mean_rating == pytest.approx(5.5)


# --- Shown --------------------------------------------------------------------------------


def paper_page(client, forum_id: str = "F0rum_42") -> str:
    paper = Paper.objects.get(forum_id=forum_id)
    return client.get(paper.get_absolute_url()).content.decode()


def test_the_paper_page_shows_each_review_folded_decision_first(client, db, tmp_path):
    import_forum(tmp_path, forum_notes())
    page = paper_page(client)
    section = page[page.index('<section class="reviews"') :]
    shown = (
        "Congratulations.",
        "Reviewers agree",
        "The paper bounds",
        "A new bound.",
        "Incremental.",
    )
    order = [section.index(text) for text in shown]
    assert order == sorted(order)  # decision, meta-review, then the reviews as written
    assert section.count('<details class="review') == 5
    assert '<details class="review review-review">' in section  # folded: no `open`
    assert 'rating <strong class="rating">6</strong>, confidence <strong>4</strong>' in section
    assert "<dd>6: marginally above the acceptance threshold</dd>" in section
    # The site's Markdown and math rules: bold, a list, math kept for KaTeX, no raw HTML.
    assert "<li>A <strong>tight</strong> bound.</li>" in section
    assert "$d &gt; 3$" in section and "data-math" in section
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert "Justification for why not higher score" in section


def test_a_members_only_review_is_shown_to_members_alone(client, db, tmp_path):
    import_forum(tmp_path, with_private_review(forum_notes()))
    assert Review.objects.get(note_id="Rv_ccc3").visibility == "members"

    visitor = paper_page(client)
    assert PUBLIC_WORDS in visitor  # the public review beside it is shown
    assert PRIVATE_WORDS not in visitor and "Reviewer q7Wp" not in visitor

    client.force_login(User.objects.create_user("member"))
    member = paper_page(client)
    assert PUBLIC_WORDS in member and PRIVATE_WORDS in member
    assert member.count("Members only") == 1
    # What everyone sees (the mean rating, the count) comes from the public reviews alone.
    paper = Paper.objects.get(forum_id="F0rum_42")
    assert (paper.mean_rating, paper.review_count) == (7.0, 2)


def test_a_members_only_review_is_in_no_search_snippet_or_export(client, db, tmp_path):
    import_forum(tmp_path, with_private_review(forum_notes()))
    client.force_login(User.objects.create_user("member"))
    # Review texts are not searched: the private words find nothing, the title finds the paper.
    assert client.get(reverse("papers:list") + "?q=Quokkaesque").context["total"] == 0
    found = client.get(reverse("papers:list") + "?q=sharp+bounds")
    assert [paper.forum_id for paper in found.context["papers"]] == ["F0rum_42"]
    for extension in ("csv", "bib", "json"):
        export = client.get(reverse("annotations:papers-export", args=[extension]) + "?q=sharp")
        body = b"".join(export.streaming_content) if export.streaming else export.content
        assert b"forum?id=F0rum_42" in body  # the paper is exported
        assert b"Quokkaesque" not in body


# --- The list page ------------------------------------------------------------------------


@pytest.fixture
def rated(db, tmp_path):
    """Four papers: rated 6.33 (the forum), 8, 4 and none."""
    import_forum(tmp_path, forum_notes())
    lines = []
    for forum, rating in (("Hi8", "8: accept"), ("Lo4", "4: reject"), ("No0", None)):
        lines.append(
            {
                "id": forum,
                "forum": forum,
                "content": {"title": f"Paper {forum}", "abstract": f"About {forum}."},
            }
        )
        if rating:
            lines.append(
                {
                    "id": f"{forum}r",
                    "forum": forum,
                    "replyto": forum,
                    "invitations": ["X/Submission1/-/Official_Review"],
                    "content": {"rating": {"value": rating}},
                }
            )
    path = tmp_path / "more.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    import_paths([str(path)])


def test_result_rows_show_the_mean_rating_when_sorted_by_it(client, rated):
    page = client.get(reverse("papers:list") + "?sort=rating").content.decode()
    assert page.count('<p class="result-rating">') == 4
    assert "Mean rating <strong>6.3</strong> from 3 reviews" in page
    assert "Mean rating <strong>8.0</strong> from 1 review</p>" in page
    assert "No rating" in page
    assert 'class="result-rating"' not in client.get(reverse("papers:list")).content.decode()


def facet_counts(response, param: str) -> dict[str, int]:
    facet = next(f for f in response.context["facets"] if f.param == param)
    return {value.label: value.count for value in facet.values if value.count}


def test_the_rating_range_filters_and_every_count_agrees_with_the_database(client, rated):
    response = client.get(reverse("papers:list") + "?rating_min=5&rating_max=8")
    in_range = Paper.objects.filter(mean_rating__gte=5, mean_rating__lte=8)
    assert {p.forum_id for p in response.context["papers"]} == {"F0rum_42", "Hi8"}
    assert response.context["total"] == in_range.count() == 2
    # Each facet counts the papers in the range only.
    decisions = in_range.exclude(decision="").values_list("decision").annotate(n=Count("pk"))
    assert facet_counts(response, "decision") == {
        **dict(decisions),
        "Not given": in_range.filter(decision="").count(),
    }
    assert facet_counts(response, "venue") == {"ICLR 2024": 1, "Not given": 1}
    chip = next(c for c in response.context["chips"] if c["facet"] == "Mean rating")
    assert chip["label"] == "5 to 8"
    assert "rating_min" not in chip["query"] and "rating_max" not in chip["query"]
    page = response.content.decode()
    assert 'name="rating_min" step="any" inputmode="decimal" value="5"' in page

    at_most = client.get(reverse("papers:list") + "?rating_max=5")
    assert [p.forum_id for p in at_most.context["papers"]] == ["Lo4"]  # unrated left out
    swapped = client.get(reverse("papers:list") + "?rating_min=8&rating_max=6.5")
    assert {p.forum_id for p in swapped.context["papers"]} == {"Hi8"}
    ignored = client.get(reverse("papers:list") + "?rating_min=abc&rating_max=nan")
    assert ignored.context["total"] == Paper.objects.count()


def test_a_saved_search_keeps_the_rating_range(db):
    user = SimpleNamespace(is_authenticated=True)
    saved = normalise_query("q=bounds&rating_min=5.50&rating_max=x&page=3", user)
    assert saved.query == "q=bounds&rating_min=5.5"
    state = PaperFilter(QueryDict(saved.query)).state
    assert state.engine_query(page=1).rating_range == (5.5, None)


def test_the_papers_admin_page_shows_its_reviews_read_only(admin_client, db, tmp_path):
    import_forum(tmp_path, with_private_review(forum_notes()))
    paper = Paper.objects.get(forum_id="F0rum_42")
    page = admin_client.get(reverse("admin:papers_paper_change", args=[paper.pk])).content
    assert b"Reviewer a1Bc" in page and b"Quokkaesque" in page  # staff are members
    assert b'name="reviews-TOTAL_FORMS" value="5"' in page
    assert b'name="reviews-0-rating"' not in page  # nothing to edit
    add_page = admin_client.get(reverse("admin:papers_paper_add")).content
    assert b"reviews-TOTAL_FORMS" not in add_page
