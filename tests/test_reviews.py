"""Reviews and decisions from OpenReview notes saved with their replies: what the reader reads
(API v2 embedded and separate replies, API v1 strings), what an import stores (idempotently,
a malformed rating cleaned), and what the site shows (the decision facet with exact
disjunctive counts, the mean-rating sort, the paper page's summary)."""

from __future__ import annotations

import io
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Count, F
from django.db.models.functions import Lower
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from papers.filters import NOT_GIVEN_LABEL, NOT_GIVEN_SLUG
from papers.importing import openreview
from papers.importing.pipeline import ImportErrors, import_paths
from papers.importing.records import ReviewRecord
from papers.models import Paper, Review, SearchChange, Tag, TagKind
from papers.search.sync import current_searcher

SAMPLE = (
    Path(__file__).resolve().parent / "data" / "openreview" / "iclr2024_forums_with_replies_v2.json"
)


def reviews_of(text: str, source: str = "n.json") -> list[ReviewRecord]:
    return [r for r in openreview.read_notes(text, source) if isinstance(r, ReviewRecord)]


def v1_lines() -> str:
    """API v1 as the old /notes endpoint gave it: plain strings, one `invitation`."""
    notes = [
        {
            "id": "V1paper",
            "forum": "V1paper",
            "invitation": "ICLR.cc/2019/Conference/-/Blind_Submission",
            "content": {
                "title": "Old Paper: Ünïcode in v1",
                "authors": ["Grace Hopper"],
                "abstract": "From the first API.",
            },
        },
        {
            "id": "V1rev1",
            "forum": "V1paper",
            "replyto": "V1paper",
            "invitation": "ICLR.cc/2019/Conference/-/Paper9/Official_Review",
            "tcdate": 1541000000000,
            "content": {
                "title": "Nice",
                "rating": "7: Good paper, accept",
                "confidence": "2: The reviewer is willing to defend the evaluation",
            },
        },
        {
            "id": "V1rev2",
            "forum": "V1paper",
            "replyto": "V1paper",
            "invitation": "ICLR.cc/2019/Conference/-/Paper9/Official_Review",
            "content": {"title": "Meh", "rating": "4: Ok but not good enough - rejection"},
        },
        {
            "id": "V1meta",
            "forum": "V1paper",
            "replyto": "V1paper",
            "invitation": "ICLR.cc/2019/Conference/-/Paper9/Meta_Review",
            "content": {"metareview": "Borderline.", "recommendation": "Accept (Poster)"},
        },
    ]
    return "\n".join(json.dumps(note, ensure_ascii=False) for note in notes) + "\n"


def run(*paths: Path) -> str:
    out = io.StringIO()
    call_command("import_papers", *map(str, paths), stdout=out)
    return out.getvalue()


# --- Reading ------------------------------------------------------------------------------


def test_v2_replies_embedded_and_separate_are_read_with_their_numbers():
    reviews = reviews_of(SAMPLE.read_text(encoding="utf-8"))
    assert [
        (r.note_id, r.forum_id, r.kind, r.rating, r.confidence, r.decision) for r in reviews
    ] == [
        ("R3v_a1", "Sc0rE_d1ff", "review", 6.0, 4.0, ""),
        ("R3v_b2", "Sc0rE_d1ff", "review", 8.0, 3.0, ""),
        ("R3v_c3", "Sc0rE_d1ff", "review", 5.0, None, ""),  # an int, no confidence
        ("M3ta_e5", "Sc0rE_d1ff", "meta_review", None, None, "Accept (poster)"),
        ("Dec1s_f6", "Sc0rE_d1ff", "decision", None, None, "Accept (poster)"),
        ("R3v_h8", "Rej3ct_g7", "review", 3.0, 5.0, ""),
        ("Dec1s_i9", "Rej3ct_g7", "decision", None, None, "Reject"),
        ("R3v_j10", "Els3where", "review", 1.0, None, ""),
    ]
    # The comment C0mm_d4 is skipped. Embedded replies are at their submission's line.
    assert reviews[0].line == 3 and reviews[5].line == 96
    assert reviews[0].created == datetime(2023, 10, 22, 18, 40, tzinfo=UTC)
    assert reviews[6].created is None


def test_v1_plain_strings_and_single_invitation_are_read():
    reviews = reviews_of(v1_lines(), "v1.jsonl")
    assert [(r.note_id, r.kind, r.rating, r.confidence, r.decision, r.line) for r in reviews] == [
        ("V1rev1", "review", 7.0, 2.0, "", 2),
        ("V1rev2", "review", 4.0, None, "", 3),
        ("V1meta", "meta_review", None, None, "Accept (Poster)", 4),
    ]


def test_papers_alone_are_what_read_gives():
    records = list(openreview.read(SAMPLE.read_text(encoding="utf-8"), "n.json"))
    assert [r.forum_id for r in records] == ["Sc0rE_d1ff", "Rej3ct_g7", "N0_r3v13ws"]


@pytest.mark.parametrize(
    ("rating", "number", "label", "note"),
    [
        (
            "6: marginally above the acceptance threshold",
            6.0,
            "6: marginally above the acceptance threshold",
            "",
        ),
        (
            "good paper",
            None,
            "good paper",
            "'good paper' does not start with a number; kept as text",
        ),
        (True, None, "", "is not a number nor text starting with one; left out"),
        ([6], None, "", "is not a number nor text starting with one; left out"),
        (5000, None, "", "5000 is not a score"),
        ("  ", None, "", ""),
    ],
)
def test_a_rating_is_cleaned_not_refused(rating, number, label, note):
    notes = [
        {
            "id": "P1",
            "forum": "P1",
            "content": {"title": {"value": "T"}, "abstract": {"value": "A"}},
        },
        {
            "id": "R1",
            "forum": "P1",
            "replyto": "P1",
            "invitations": ["V/Submission1/-/Official_Review"],
            "content": {"rating": {"value": rating}},
        },
    ]
    text = "\n".join(json.dumps(note) for note in notes)
    [review] = reviews_of(text, "n.jsonl")
    assert (review.rating, review.rating_label) == (number, label)
    if note:
        [cleaned] = review.cleaned
        assert cleaned.startswith("reply R1: content.rating ") and note in cleaned
    else:
        assert review.cleaned == []


# --- Importing ----------------------------------------------------------------------------


def test_an_import_stores_reviews_and_the_papers_summaries(db):
    report = run(SAMPLE)
    assert "reviews: 7 new, 0 updated, 0 unchanged, 1 skipped" in report
    accepted = Paper.objects.get(forum_id="Sc0rE_d1ff")
    assert accepted.decision == "Accept (poster)"
    assert accepted.mean_rating == pytest.approx((6 + 8 + 5) / 3)
    assert accepted.mean_confidence == pytest.approx(3.5)  # the review without one left out
    assert accepted.review_count == 3
    rejected = Paper.objects.get(forum_id="Rej3ct_g7")
    assert (rejected.decision, rejected.mean_rating, rejected.review_count) == ("Reject", 3.0, 1)
    unreviewed = Paper.objects.get(forum_id="N0_r3v13ws")
    assert (unreviewed.decision, unreviewed.mean_rating, unreviewed.review_count) == ("", None, 0)
    # The reply to a forum in neither the file nor the catalogue is skipped, not stored.
    assert not Review.objects.filter(note_id="R3v_j10").exists()
    assert set(Tag.objects.filter(kind=TagKind.DECISION).values_list("name", "slug")) == {
        ("Accept (poster)", "accept-poster"),
        ("Reject", "reject"),
    }


def test_re_importing_adds_nothing_twice_and_updates_a_changed_rating(db, tmp_path):
    run(SAMPLE)
    stored = sorted(Review.objects.values_list("note_id", "rating"))
    # The same notes, laid out differently (so the file is read again), in the same source.
    again = tmp_path / "again" / SAMPLE.name
    again.parent.mkdir()
    again.write_text(json.dumps(json.loads(SAMPLE.read_text(encoding="utf-8"))), encoding="utf-8")
    assert "reviews: 0 new, 0 updated, 7 unchanged, 1 skipped" in run(again)
    assert sorted(Review.objects.values_list("note_id", "rating")) == stored

    changed = tmp_path / "changed" / SAMPLE.name
    changed.parent.mkdir()
    changed.write_text(
        SAMPLE.read_text(encoding="utf-8").replace("8: accept, good paper", "10: strong accept"),
        encoding="utf-8",
    )
    seq_before = SearchChange.objects.order_by("-seq").values_list("seq", flat=True).first()
    assert "reviews: 0 new, 1 updated, 6 unchanged, 1 skipped" in run(changed)
    assert Review.objects.count() == 7
    paper = Paper.objects.get(forum_id="Sc0rE_d1ff")
    assert paper.mean_rating == pytest.approx(7.0)
    # Recorded for every app server's index: the paper's rating changed.
    assert list(
        SearchChange.objects.filter(seq__gt=seq_before).values_list("paper_id", flat=True)
    ) == [paper.pk]


def test_a_rating_that_is_no_number_is_imported_as_its_text_and_reported(db, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        SAMPLE.read_text(encoding="utf-8").replace('"value": 5}', '"value": "five"}'),
        encoding="utf-8",
    )
    report = run(bad)
    assert f"{bad}:3: reply R3v_c3: content.rating 'five' does not start with a number" in report
    review = Review.objects.get(note_id="R3v_c3")
    assert (review.rating, review.rating_label) == (None, "five")
    # The other two reviews' ratings make the mean; the unrated one is still counted.
    paper = Paper.objects.get(forum_id="Sc0rE_d1ff")
    assert (paper.mean_rating, paper.review_count) == (7.0, 3)


def test_v1_reviews_import_with_the_meta_reviews_recommendation_as_decision(db, tmp_path):
    path = tmp_path / "iclr2019.jsonl"
    path.write_text(v1_lines(), encoding="utf-8")
    run(path)
    paper = Paper.objects.get(forum_id="V1paper")
    assert (paper.decision, paper.mean_rating, paper.mean_confidence, paper.review_count) == (
        "Accept (Poster)",
        5.5,
        2.0,
        2,
    )


def test_reviews_alone_attach_to_papers_already_in_the_catalogue(db, tmp_path):
    lines = v1_lines().splitlines()
    papers, replies = tmp_path / "papers.jsonl", tmp_path / "replies.jsonl"
    papers.write_text(lines[0] + "\n", encoding="utf-8")
    replies.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    run(papers)
    report = import_paths([str(replies)], format="openreview")
    assert report.total.reviews_created == 3
    assert Paper.objects.get(forum_id="V1paper").review_count == 2


def test_two_different_copies_of_one_reply_in_a_file_fail(db, tmp_path):
    lines = v1_lines().splitlines()
    other = json.loads(lines[1])
    other["content"]["rating"] = "9: Top 15%"
    path = tmp_path / "twice.jsonl"
    path.write_text("\n".join([*lines, json.dumps(other)]) + "\n", encoding="utf-8")
    with pytest.raises(ImportErrors) as caught:
        import_paths([str(path)])
    assert f"{path}:5: reply V1rev1 is also at line 2 of this file" in str(caught.value)
    assert Paper.objects.count() == 0


# --- The list page and the paper page -----------------------------------------------------


@pytest.fixture
def reviewed(db, tmp_path):
    """The sample, the v1 file, and one more accepted paper, indexed as a server has it."""
    v1 = tmp_path / "iclr2019.jsonl"
    v1.write_text(v1_lines(), encoding="utf-8")
    more = tmp_path / "more.jsonl"
    notes = [
        {"id": "Mor3", "forum": "Mor3", "content": {"title": "More", "abstract": "Another."}},
        {
            "id": "Mor3d",
            "forum": "Mor3",
            "invitations": ["X/-/Decision"],
            "content": {"decision": {"value": "Accept (poster)"}},
        },
        {
            "id": "Mor3r",
            "forum": "Mor3",
            "invitations": ["X/-/Official_Review"],
            "content": {"rating": {"value": "9: top"}},
        },
    ]
    more.write_text("\n".join(json.dumps(n) for n in notes) + "\n", encoding="utf-8")
    shutil.copy(SAMPLE, tmp_path / SAMPLE.name)
    run(tmp_path / SAMPLE.name, v1, more)
    current_searcher()


def facet_values(response, param="decision"):
    facet = next(f for f in response.context["facets"] if f.param == param)
    return [(v.value, v.label, v.count, v.selected) for v in facet.values]


def test_decision_facet_counts_equal_a_group_by(client, reviewed):
    response = client.get(reverse("papers:list"))
    # Decisions are grouped as tags are, whatever their case: "Accept (Poster)" (v1) is
    # "Accept (poster)", named as first imported.
    rows = Paper.objects.values_list(Lower("decision")).annotate(n=Count("pk"))
    expected = {(decision or NOT_GIVEN_SLUG): n for decision, n in rows}
    shown = {label.lower(): count for _, label, count, _ in facet_values(response)}
    assert shown == {
        NOT_GIVEN_LABEL.lower() if k == NOT_GIVEN_SLUG else k: n for k, n in expected.items()
    }
    assert expected == {"accept (poster)": 3, "reject": 1, NOT_GIVEN_SLUG: 1}
    # "Not given" comes last, whatever its count.
    assert facet_values(response)[-1] == (NOT_GIVEN_SLUG, NOT_GIVEN_LABEL, 1, False)


def test_decision_facet_is_disjunctive_and_filters(client, reviewed):
    response = client.get(reverse("papers:list") + "?decision=accept-poster")
    assert {p.forum_id for p in response.context["papers"]} == {"Sc0rE_d1ff", "Mor3", "V1paper"}
    # Its own facet still counts every decision; the chip names the value.
    assert ("reject", "Reject", 1, False) in facet_values(response)
    assert ("accept-poster", "Accept (poster)", 3, True) in facet_values(response)
    assert any(chip["label"] == "Accept (poster)" for chip in response.context["chips"])

    not_given = client.get(reverse("papers:list") + f"?decision={NOT_GIVEN_SLUG}")
    assert [p.forum_id for p in not_given.context["papers"]] == ["N0_r3v13ws"]
    bogus = client.get(reverse("papers:list") + "?decision=accept-maybe")
    assert bogus.context["ignored"] == ["decision “accept-maybe”"]


def test_sort_by_mean_rating_puts_the_highest_first_and_unrated_last(client, reviewed):
    response = client.get(reverse("papers:list") + "?sort=rating")
    expected = list(
        Paper.objects.order_by(F("mean_rating").desc(nulls_last=True), "-pk").values_list(
            "forum_id", flat=True
        )
    )
    assert [p.forum_id for p in response.context["papers"]] == expected
    assert expected == ["Mor3", "Sc0rE_d1ff", "V1paper", "Rej3ct_g7", "N0_r3v13ws"]
    assert '<option value="rating" selected>Mean rating</option>' in response.content.decode()


def test_list_page_queries_with_decision_and_rating_sort_match_a_track_filter(client, reviewed):
    current_searcher()
    with CaptureQueriesContext(connection) as by_track:
        client.get(reverse("papers:list") + "?track=poster")
    with CaptureQueriesContext(connection) as by_decision:
        client.get(reverse("papers:list") + "?decision=accept-poster&sort=rating")
    assert len(by_decision) == len(by_track)


def test_paper_page_shows_the_review_summary(client, reviewed):
    paper = Paper.objects.get(forum_id="Sc0rE_d1ff")
    content = client.get(paper.get_absolute_url()).content.decode()
    assert 'Decision: <strong class="decision">Accept (poster)</strong>' in content
    assert 'mean rating <strong class="rating">6.3</strong> from 3 reviews (confidence 3.5)' in (
        content
    )
    unreviewed = Paper.objects.get(forum_id="N0_r3v13ws")
    assert "review-summary" not in client.get(unreviewed.get_absolute_url()).content.decode()


def test_a_catalogue_without_decisions_shows_no_decision_facet(client, db, tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text(v1_lines().splitlines()[0] + "\n", encoding="utf-8")
    run(path)
    response = client.get(reverse("papers:list"))
    assert "decision" not in [facet.param for facet in response.context["facets"]]


def test_the_decision_tag_page_lists_the_papers_with_that_decision(client, reviewed):
    tag = Tag.objects.get(kind=TagKind.DECISION, slug="reject")
    response = client.get(tag.get_absolute_url())
    assert response.status_code == 200
    assert "Yet Another Optimiser" in response.content.decode()
    assert "Score Matching" not in response.content.decode()


def test_decisions_whose_slugs_collide_get_distinct_tags(client, db, tmp_path):
    notes = []
    for n, decision in enumerate(["Accept: poster", "Accept (poster)"]):
        paper = f"Coll1de{n}"
        notes.append(
            {"id": paper, "forum": paper, "content": {"title": decision, "abstract": f"A{n}."}}
        )
        notes.append(
            {
                "id": f"{paper}d",
                "forum": paper,
                "invitations": [f"V/Submission{n}/-/Decision"],
                "content": {"decision": {"value": decision}},
            }
        )
    path = tmp_path / "collide.jsonl"
    path.write_text("\n".join(json.dumps(note) for note in notes) + "\n", encoding="utf-8")
    run(path)
    assert set(Tag.objects.filter(kind=TagKind.DECISION).values_list("name", "slug")) == {
        ("Accept (poster)", "accept-poster"),  # first in key order: "(" before ":"
        ("Accept: poster", "accept-poster-2"),
    }
    response = client.get(reverse("papers:list") + "?decision=accept-poster-2")
    assert [p.title for p in response.context["papers"]] == ["Accept: poster"]


def test_a_reply_both_embedded_and_separate_is_stored_once(db, tmp_path):
    review = {
        "id": "Tw1ce_r",
        "forum": "Tw1ce",
        "replyto": "Tw1ce",
        "invitations": ["V/Submission3/-/Official_Review"],
        "content": {"rating": {"value": "7: good"}, "confidence": {"value": 2}},
    }
    paper = {
        "id": "Tw1ce",
        "forum": "Tw1ce",
        "content": {"title": {"value": "Twice"}, "abstract": {"value": "Seen twice."}},
        # API v1's name for the first level of replies; repeated in "replies" too.
        "details": {"directReplies": [review], "replies": [review]},
    }
    path = tmp_path / "twice.json"
    path.write_text(json.dumps({"notes": [paper, review]}, indent=2), encoding="utf-8")
    report = import_paths([str(path)])
    assert report.total.reviews_created == 1
    assert Paper.objects.get(forum_id="Tw1ce").review_count == 1
