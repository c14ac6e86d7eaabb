"""One bad note or entry in a page of good ones: left out with a warning that names it, in the
run's report and its import history, and the rest of the page imported. Pages are replayed by
respx in the documented formats (OpenReview API v2 notes, arXiv's Atom); nothing reaches the
internet."""

from __future__ import annotations

import io
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx
from django.core.management import call_command

from bench.standins import VENUE, page, v2_note, v2_reply
from papers.models import ImportRun, Paper, Review
from papers.sources import single
from papers.sources.runs import fetch_arxiv_into_catalogue, fetch_venue_into_catalogue
from tests.arxiv_feed import atom_entry, feed

pytestmark = pytest.mark.django_db

OPENREVIEW = "https://openreview.test"
ARXIV = "https://arxiv.test/api/query"


@pytest.fixture(autouse=True)
def services(settings):
    settings.OPENREVIEW_API_URL = OPENREVIEW
    settings.ARXIV_API_URL = ARXIV
    settings.ARXIV_API_DELAY = 0


def serve_notes(notes: list) -> respx.Route:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, json=page({("content.venueid", VENUE): notes}, request.url.params)
        )

    return respx.get(f"{OPENREVIEW}/notes").mock(side_effect=answer)


def without_content(note_id: str) -> dict:
    note = v2_note(note_id)
    del note["content"]
    return note


def with_content(note_id: str, **values) -> dict:
    """A note whose content fields `values` are given as they come, already wrapped or not."""
    note = v2_note(note_id)
    note["content"].update(values)
    return note


# --- OpenReview ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (without_content("Bad_1"), "note has no 'content'"),
        (with_content("Bad_1", title={"value": 42}), "content.title must be text, got a number"),
        (
            with_content("Bad_1", abstract={"value": ["not", "text"]}),
            "content.abstract must be text, got a list",
        ),
        (
            with_content("Bad_1", keywords={"value": {"a": 1}}),
            "content.keywords must be a list of strings or a comma string",
        ),
        (with_content("Bad_1", venue={"no value": "x"}), 'got an object without "value"'),
        ({**v2_note("Bad_1"), "pdate": "yesterday"}, "'pdate' must be milliseconds since 1970"),
    ],
)
@respx.mock
def test_a_malformed_note_is_left_out_with_a_warning_and_the_page_imported(bad, problem):
    serve_notes([v2_note("Good_1"), bad, v2_note("Good_2")])
    run = fetch_venue_into_catalogue(VENUE)
    assert sorted(Paper.objects.values_list("forum_id", flat=True)) == ["Good_1", "Good_2"]
    (warning,) = run.report.total.warnings
    assert warning.startswith(f"{OPENREVIEW}/notes?content.venueid=")
    assert "note Bad_1: " in warning and problem in warning
    assert run.report.total.summary().endswith("; 1 warning")


@respx.mock
def test_a_note_that_is_no_object_is_named_by_its_place():
    serve_notes([v2_note("Good_1"), "not a note", v2_note("Good_2")])
    run = fetch_venue_into_catalogue(VENUE)
    (warning,) = run.report.total.warnings
    assert "note #2: each note must be a JSON object {...}, got text" in warning
    assert Paper.objects.count() == 2


@respx.mock
def test_a_review_whose_rating_is_no_number_is_kept_as_its_text_and_reported():
    replies = [
        v2_reply("Rev_1", "Good_1", "Official_Review", rating="8: accept", confidence=4),
        v2_reply("Rev_2", "Good_1", "Official_Review", rating="excellent", confidence=4),
    ]
    serve_notes([v2_note("Good_1", replies=replies)])
    run = fetch_venue_into_catalogue(VENUE)
    paper = Paper.objects.get(forum_id="Good_1")
    assert sorted(Review.objects.values_list("note_id", "rating", "rating_label")) == [
        ("Rev_1", 8.0, "8: accept"),
        ("Rev_2", None, "excellent"),
    ]
    assert paper.mean_rating == pytest.approx(8.0)
    assert not run.report.total.warnings
    (cleaned,) = run.report.total.cleaned
    assert "reply Rev_2: content.rating 'excellent' does not start with a number" in cleaned


@respx.mock
def test_the_warnings_are_printed_and_kept_in_the_import_history(admin_client):
    serve_notes([v2_note("Good_1"), without_content("Bad_1")])
    out = io.StringIO()
    call_command("fetch_openreview", VENUE, stdout=out, stderr=io.StringIO())
    output = out.getvalue()
    assert "Total: 1 created, 0 updated, 0 unchanged, 0 conflicts; 1 warning" in output
    assert "Warnings (left out; the rest was imported):\n  " in output
    assert "note Bad_1: note has no 'content'" in output
    run = ImportRun.objects.get()
    (warning,) = run.files[0]["warnings"]
    assert "note Bad_1" in warning
    page = admin_client.get(f"/admin/papers/importrun/{run.pk}/change/").content.decode()
    assert "note Bad_1: note has no &#x27;content&#x27;" in page


@respx.mock
def test_a_paper_added_by_its_link_keeps_its_reviews_and_reports_the_cleaning(django_user_model):
    member = django_user_model.objects.create_user("ann")
    replies = [
        v2_reply("Rev_1", "Good_1", "Official_Review", rating=6, confidence=3),
        v2_reply("Rev_2", "Good_1", "Official_Review", rating=[6], confidence=3),
    ]
    note = v2_note("Good_1", replies=replies)
    respx.get(f"{OPENREVIEW}/notes").mock(return_value=httpx.Response(200, json={"notes": [note]}))
    paper = single.paper_for_identifier("https://openreview.net/forum?id=Good_1", user=member)
    assert paper is not None and paper.mean_rating == pytest.approx(6.0)
    assert paper.review_count == 2  # the review without a usable rating is kept
    (cleaned,) = ImportRun.objects.get(user=member).files[0]["cleaned"]
    assert "reply Rev_2: content.rating is not a number nor text starting with one" in cleaned


# --- arXiv --------------------------------------------------------------------------------


def serve_feed(entries: list[str]) -> respx.Route:
    def answer(request: httpx.Request) -> httpx.Response:
        params = {k: v[0] for k, v in parse_qs(urlsplit(str(request.url)).query).items()}
        start, size = int(params["start"]), int(params["max_results"])
        text = feed(entries[start : start + size], total=len(entries), start=start)
        return httpx.Response(200, text=text, headers={"Content-Type": "application/atom+xml"})

    return respx.get(ARXIV).mock(side_effect=answer)


def bad_id(entry: str) -> str:
    return entry.replace(
        "<id>http://arxiv.org/abs/2402.00002v1</id>", "<id>http://example.org/paper/2</id>"
    )


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (bad_id(atom_entry("2402.00002")), "entry id 'http://example.org/paper/2' is not"),
        (
            atom_entry("2402.00002", published="last Tuesday"),
            "published date 'last Tuesday' is not a date",
        ),
    ],
)
@respx.mock
def test_a_malformed_arxiv_entry_is_left_out_with_a_warning_and_paging_goes_on(bad, problem):
    entries = [atom_entry("2402.00001"), bad, atom_entry("2402.00003"), atom_entry("2402.00004")]
    route = serve_feed(entries)
    run = fetch_arxiv_into_catalogue("cat:cs.LG", page_size=2)
    assert sorted(Paper.objects.values_list("arxiv_id", flat=True)) == [
        "2402.00001",
        "2402.00003",
        "2402.00004",
    ]
    # The page with the bad entry counted it: the next page starts after it.
    assert [call.request.url.params["start"] for call in route.calls] == ["0", "2"]
    (warning,) = run.report.total.warnings
    assert warning.startswith("arxiv-api?search_query=cat%3Acs.LG&start=0&max_results=2")
    assert problem in warning and warning.endswith("; the entry was left out")
    assert "end of results" in run.summary


@respx.mock
def test_a_page_of_only_bad_entries_neither_ends_the_query_nor_counts_as_known():
    serve_feed([bad_id(atom_entry("2402.00002")), atom_entry("2402.00001")])
    run = fetch_arxiv_into_catalogue("cat:cs.LG", page_size=1)
    assert list(Paper.objects.values_list("arxiv_id", flat=True)) == ["2402.00001"]
    assert len(run.report.total.warnings) == 1
