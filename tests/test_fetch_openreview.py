"""Fetching a venue from OpenReview's API: pages replayed by respx in the documented API v2
shape (and v1 for older venues), mapped by the file reader's note mapping, loaded by the one
pipeline. Nothing reaches the internet."""

from __future__ import annotations

import io
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
import respx
from django.core.management import CommandError, call_command

from bench.standins import (
    THROTTLE,
    UNAVAILABLE,
    VENUE,
    StandIn,
    note_id,
    page,
    title_of,
    v1_note,
    v2_note,
    v2_reply,
)
from papers.importing.records import PaperRecord, ReviewRecord
from papers.models import ImportRun, Paper, SourceRecord
from papers.sources.client import FetchClient, FetchError, service
from papers.sources.openreview_api import fetch_venue

V2 = "https://api2.openreview.net"
V1 = "https://api.openreview.net"
SOURCE = f"openreview:{VENUE}"


def no_wait_client(name: str) -> FetchClient:
    return FetchClient(service(name), sleep=lambda seconds: None, jitter=lambda: 0.0)


def serve(queries, base=V2, status=200):
    """Answer /notes at `base` from `queries` ({(parameter, value): notes})."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=page(queries, request.url.params))

    return respx.get(f"{base}/notes").mock(side_effect=answer)


def venue_notes() -> list[dict]:
    return [
        v2_note(
            "aB3dE_f-01",
            r"$\alpha$-VAE: Disentangling with a Tilted Prior",
            number=1,
            authors=["Zoë Ünal", "李雷"],
            venue="ICLR 2025 Oral",
            replies=[
                v2_reply("rev1", "aB3dE_f-01", "Official_Review", rating="6: marginally above"),
                v2_reply("rev2", "aB3dE_f-01", "Official_Review", rating=8, confidence=4),
                v2_reply("com1", "aB3dE_f-01", "Official_Comment", comment="Thanks!"),
                v2_reply("dec1", "aB3dE_f-01", "Decision", decision="Accept (oral)"),
            ],
        ),
        # Missing fields: no pdf, no keywords, no authorids, no venue.
        v2_note("Gh7_pOsTer", 'Schr\\"odinger Bridges', number=2, pdf=None, venue=None),
    ]


@respx.mock
def test_a_venue_is_fetched_with_its_reviews_and_decision():
    route = serve({("content.venueid", VENUE): venue_notes()})
    fetch = fetch_venue(VENUE, client=no_wait_client)
    papers = [r for r in fetch.records if isinstance(r, PaperRecord)]
    reviews = [r for r in fetch.records if isinstance(r, ReviewRecord)]
    assert (fetch.api, fetch.notes, fetch.papers) == ("v2", 2, 2)
    oral, second = papers
    assert oral.title == r"$\alpha$-VAE: Disentangling with a Tilted Prior"
    assert oral.authors == ["Zoë Ünal", "李雷"]
    assert oral.tags == ["ICLR 2025", "Oral"]
    assert oral.pdf_url == "https://openreview.net/pdf/aB3dE_f-01.pdf"
    assert (oral.source, oral.line, second.line) == (SOURCE, 1, 2)
    assert (second.pdf_url, second.tags) == ("", [])
    assert [(r.note_id, r.kind, r.rating, r.decision) for r in reviews] == [
        ("rev1", "review", 6.0, ""),
        ("rev2", "review", 8.0, ""),
        ("dec1", "decision", None, "Accept (oral)"),
    ]
    first = route.calls[0].request.url.params
    assert first["content.venueid"] == VENUE
    assert (first["details"], first["limit"], first["offset"]) == ("replies", "1000", "0")
    # Then the submission invitation, for papers without a decision yet.
    assert route.calls[1].request.url.params["invitation"] == f"{VENUE}/-/Submission"


@respx.mock
def test_pages_are_read_until_the_count_and_each_note_is_seen_once():
    notes = [v2_note(f"note{n:04d}", f"Paper {n}", number=n) for n in range(1, 6)]
    route = serve(
        {
            ("content.venueid", VENUE): notes[:3],
            # Under review: every submission, the accepted three again.
            ("invitation", f"{VENUE}/-/Submission"): notes,
        }
    )
    pages = []
    fetch = fetch_venue(
        VENUE, client=no_wait_client, page_size=2, progress=lambda *a: pages.append(a)
    )
    assert [r.forum_id for r in fetch.records] == [f"note{n:04d}" for n in range(1, 6)]
    offsets = [
        (call.request.url.params.get("invitation", "venueid"), call.request.url.params["offset"])
        for call in route.calls
    ]
    assert offsets == [
        ("venueid", "0"),
        ("venueid", "2"),
        (f"{VENUE}/-/Submission", "0"),
        (f"{VENUE}/-/Submission", "2"),
        (f"{VENUE}/-/Submission", "4"),
    ]
    assert pages[-1] == (5, 5)


@respx.mock
def test_a_venue_of_api_v1_is_fetched_from_v1():
    serve({})
    reply = {
        "id": "r1",
        "forum": "OldPaper1",
        "replyto": "OldPaper1",
        "invitation": "ICLR.cc/2019/Conference/-/Paper1/Official_Review",
        "content": {"title": "Review", "rating": "7: Good paper, accept", "confidence": "4: sure"},
    }
    invitation = "ICLR.cc/2019/Conference/-/Blind_Submission"
    v1 = serve({("invitation", invitation): [v1_note("OldPaper1", "Older", [reply])]}, base=V1)
    fetch = fetch_venue("ICLR.cc/2019/Conference", client=no_wait_client)
    assert fetch.api == "v1"
    paper, review = fetch.records
    assert isinstance(paper, PaperRecord) and isinstance(review, ReviewRecord)
    assert (paper.title, paper.tags) == ("Older", ["ICLR 2019", "Poster"])
    assert (review.rating, review.confidence) == (7.0, 4.0)
    assert v1.calls[0].request.url.params["invitation"] == invitation


@respx.mock
def test_an_unknown_venue_is_a_clear_error():
    serve({})
    serve({}, base=V1)
    with pytest.raises(FetchError) as caught:
        fetch_venue("Nowhere.cc/2025", client=no_wait_client)
    assert "no notes for the venue 'Nowhere.cc/2025'" in str(caught.value)
    assert str(caught.value).startswith(f"{V1}/notes?invitation=Nowhere.cc")


@respx.mock
def test_a_page_without_notes_names_its_url():
    respx.get(f"{V2}/notes").mock(return_value=httpx.Response(200, json={"error": "nope"}))
    with pytest.raises(FetchError) as caught:
        fetch_venue(VENUE, client=no_wait_client)
    assert str(caught.value) == (
        f"{V2}/notes?content.venueid=ICLR.cc%2F2025%2FConference&details=replies&limit=1000"
        '&offset=0: expected {"notes": [...]}, the answer has no list'
    )


@respx.mock
def test_a_malformed_note_is_left_out_with_a_warning_naming_the_page_and_the_note():
    bad = v2_note("Bad_1")
    bad["content"]["authors"] = {"value": "Ann One"}
    serve({("content.venueid", VENUE): [v2_note("Good_1"), bad]})
    fetch = fetch_venue(VENUE, client=no_wait_client)
    assert [record.forum_id for record in fetch.records] == ["Good_1"]
    (warning,) = fetch.warnings
    assert warning.startswith(f"{V2}/notes?content.venueid=")
    assert "note Bad_1: content.authors must be a list of names" in warning
    assert warning.endswith("; the note was left out")


# --- manage.py fetch_openreview: through the pipeline -------------------------------------


def fetch_command(*args: str) -> str:
    out = io.StringIO()
    call_command("fetch_openreview", VENUE, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.mark.django_db
@respx.mock
def test_the_command_imports_papers_reviews_and_decision_and_reports():
    serve({("content.venueid", VENUE): venue_notes()})
    output = fetch_command()
    assert f"OpenReview {VENUE} (API v2): 2 notes, 2 papers" in output
    assert "Total: 2 created, 0 updated, 0 unchanged, 0 conflicts; reviews: 3 new" in output
    oral = Paper.objects.get(forum_id="aB3dE_f-01")
    assert oral.title == r"$\alpha$-VAE: Disentangling with a Tilted Prior"
    assert oral.decision == "Accept (oral)"
    assert oral.mean_rating == pytest.approx(7.0)
    assert Paper.objects.get(forum_id="Gh7_pOsTer").title == "Schrödinger Bridges"
    assert ImportRun.objects.get().files[0]["path"] == SOURCE


@pytest.mark.django_db
@respx.mock
def test_a_second_run_over_unchanged_notes_writes_nothing():
    serve({("content.venueid", VENUE): venue_notes()})
    fetch_command()
    stamps = list(Paper.objects.order_by("pk").values_list("pk", "updated_at"))
    sources = list(SourceRecord.objects.order_by("pk").values_list("pk", "digest"))
    output = fetch_command()
    assert "Total: 0 created, 0 updated, 2 unchanged, 0 conflicts" in output
    assert "reviews: 0 new, 0 updated, 3 unchanged" in output
    assert list(Paper.objects.order_by("pk").values_list("pk", "updated_at")) == stamps
    assert list(SourceRecord.objects.order_by("pk").values_list("pk", "digest")) == sources


@pytest.mark.django_db
@respx.mock
def test_a_note_changed_at_the_source_is_updated():
    notes = venue_notes()
    serve({("content.venueid", VENUE): notes})
    fetch_command()
    notes[1]["content"]["title"] = {"value": "Schrödinger Bridges, Revisited"}
    output = fetch_command()
    assert "Total: 0 created, 1 updated, 1 unchanged, 0 conflicts" in output
    assert Paper.objects.get(forum_id="Gh7_pOsTer").title == "Schrödinger Bridges, Revisited"


@pytest.mark.django_db
@respx.mock
def test_a_dry_run_writes_nothing():
    serve({("content.venueid", VENUE): venue_notes()})
    output = fetch_command("--dry-run")
    assert "Dry run, nothing written. Would have: 2 created" in output
    assert not Paper.objects.exists()


@pytest.mark.django_db
@respx.mock
def test_a_malformed_second_page_is_one_line_naming_its_url_and_writes_nothing():
    notes = [v2_note(f"note{n:04d}", f"Paper {n}", number=n) for n in range(1, 1002)]

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.params["offset"] == "1000":
            return httpx.Response(200, text='{"notes": [{"id": "x", ')
        return httpx.Response(
            200, json=page({("content.venueid", VENUE): notes}, request.url.params)
        )

    respx.get(f"{V2}/notes").mock(side_effect=answer)
    with pytest.raises(CommandError) as caught:
        fetch_command()
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{V2}/notes?content.venueid=ICLR.cc%2F2025%2FConference")
    assert "offset=1000: the answer is not JSON" in message
    assert not Paper.objects.exists()
    assert not ImportRun.objects.exists()


# --- End to end: the local stand-in of OpenReview (bench/standins.py) ---------------------


@pytest.fixture
def local_openreview(settings):
    # 350 notes: 280 accepted (the venueid query), every one under the submission invitation.
    # The second and third pages of the venueid query are refused once each.
    faults = {("openreview", 100): THROTTLE, ("openreview", 200): UNAVAILABLE}
    with StandIn(notes=350, entries=0, faults=faults, retry_after=0) as stand_in:
        for name, url in stand_in.urls.items():
            setattr(settings, name, url)
        yield stand_in


@pytest.mark.django_db
def test_end_to_end_a_venue_over_pages_from_a_busy_server(local_openreview, monkeypatch):
    # Pages of 100 so the venue takes several; the 503's backoff is made short, not skipped.
    monkeypatch.setattr("papers.sources.openreview_api.PAGE_SIZE", 100)
    monkeypatch.setattr("papers.sources.client.BACKOFF", 0.05)
    output = fetch_command()
    assert f"OpenReview {VENUE} (API v2): 350 notes, 350 papers" in output
    assert "Total: 350 created, 0 updated, 0 unchanged, 0 conflicts" in output
    assert Paper.objects.count() == 350
    assert Paper.objects.get(forum_id=note_id(7)).title == title_of(7)
    queries = [dict(parse_qsl(urlsplit(path).query)) for path in local_openreview.log]
    venue_offsets = [q["offset"] for q in queries if "content.venueid" in q]
    # The refused pages were asked again; then the submission invitation, all seen already.
    assert venue_offsets == ["0", "100", "100", "200", "200"]
    assert [q["offset"] for q in queries if "invitation" in q] == ["0", "100", "200", "300"]
    assert local_openreview.faults == {}
    assert "Total: 0 created, 0 updated, 350 unchanged" in fetch_command()
