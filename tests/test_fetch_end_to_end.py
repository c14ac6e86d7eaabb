"""The fetch commands end to end: manage.py fetch_openreview and fetch_arxiv, as they run, against
the local stand-ins of OpenReview and arXiv (bench/standins.py) with their usual misbehaviour (a
429, a 503, a slow answer), then the pages a reader sees. Nothing reaches the internet."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from bench.standins import (
    ARXIV_QUERY,
    AUTHORS,
    VENUE,
    StandIn,
    arxiv_id_of,
    authors_of,
    note_id,
    title_of,
    track_of,
    usual_faults,
)
from papers.models import Author, Paper

# Local stand-in servers for OpenReview and arXiv, hundreds of notes, a fetch killed in a child
# process: seconds per test.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PAGE = 100  # OpenReview notes a page in the in-process tests, so a small venue has several
# Enough for four pages of the submission query: the fourth is the slow one.
NOTES = 350


def point_at(stand_in: StandIn, settings) -> None:
    for name, url in stand_in.urls.items():
        setattr(settings, name, url)
    settings.ARXIV_API_DELAY = 0  # the real arXiv asks 3 s between calls
    # The slow answer (1 s) stays under the client's timeout, as a slow server's would.
    settings.FETCH_TIMEOUT = 2


def unicode_name(name: str) -> str:
    """A name of the stand-ins as the catalogue keeps it: its TeX accents as letters."""
    return name.replace("\\H{o}", "ő").replace('\\"o', "ö")


@pytest.fixture
def venue(settings, monkeypatch):
    monkeypatch.setattr("papers.sources.openreview_api.PAGE_SIZE", PAGE)
    monkeypatch.setattr("papers.sources.client.BACKOFF", 0.05)  # the 503's backoff, shortened
    with StandIn(notes=NOTES, entries=0, faults=usual_faults(PAGE)) as stand_in:
        point_at(stand_in, settings)
        yield stand_in


def fetch(command: str, *args: str) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.mark.django_db
def test_every_note_is_imported_with_its_authors_in_order_and_its_track(venue, client):
    output = fetch("fetch_openreview", VENUE)
    assert f"OpenReview {VENUE} (API v2): 350 notes, 350 papers" in output
    assert "Total: 350 created, 0 updated, 0 unchanged, 0 conflicts" in output
    # Each misbehaviour happened and was waited out.
    assert not [key for key in venue.faults if key[0] == "openreview"]
    papers = {paper.forum_id: paper for paper in Paper.objects.prefetch_related("authorships")}
    assert len(papers) == NOTES
    for number in range(1, NOTES + 1):
        paper = papers[note_id(number)]
        shown = [a.author.name for a in paper.authorships.order_by("position")]
        assert (paper.title, shown) == (
            # A title's TeX accents are shown as Unicode, its $...$ kept; a name's too.
            title_of(number).replace('\\"o', "ö"),
            [unicode_name(name) for name in authors_of(number)],
        ), number
    # One author per person, by profile id (an author without one, by name), on every paper.
    assert Author.objects.count() == len(AUTHORS)
    assert dict(Author.objects.values_list("openreview_id", "name"))[None] == "Ngozi Okafor"
    tracks = [track_of(number) for number in range(1, NOTES + 1)]
    for track in ("Poster", "Oral"):
        response = client.get(f"/?track={track.lower()}")
        assert response.context["total"] == tracks.count(track), track


@pytest.mark.django_db
def test_decisions_and_mean_ratings_are_on_the_paper_pages(venue, client):
    fetch("fetch_openreview", VENUE)
    # Note 10: an oral with replies; 11: rejected with replies; 12: no replies yet.
    oral, rejected, quiet = (Paper.objects.get(forum_id=note_id(n)) for n in (10, 11, 12))
    page = client.get(oral.get_absolute_url()).content.decode()
    assert 'Decision: <strong class="decision">Accept (oral)</strong>' in page
    # "6: marginally above the acceptance threshold" and 8.
    assert 'mean rating <strong class="rating">7.0</strong> from 2 reviews' in page
    page = client.get(rejected.get_absolute_url()).content.decode()
    assert 'Decision: <strong class="decision">Reject</strong>' in page
    page = client.get(quiet.get_absolute_url()).content.decode()
    assert 'class="review-summary"' not in page


@pytest.mark.django_db
def test_a_second_run_changes_nothing_and_a_note_changed_at_the_source_is_updated(venue):
    fetch("fetch_openreview", VENUE)
    stamps = list(Paper.objects.order_by("pk").values_list("pk", "updated_at"))
    assert "Total: 0 created, 0 updated, 350 unchanged, 0 conflicts" in fetch(
        "fetch_openreview", VENUE
    )
    assert list(Paper.objects.order_by("pk").values_list("pk", "updated_at")) == stamps
    venue.retitle(5, "A Title Changed at the Source")
    assert "Total: 0 created, 1 updated, 349 unchanged, 0 conflicts" in fetch(
        "fetch_openreview", VENUE
    )
    assert Paper.objects.get(forum_id=note_id(5)).title == "A Title Changed at the Source"


@pytest.mark.django_db
def test_an_arxiv_query_of_2200_papers_each_with_its_id_on_its_page(settings, client):
    with StandIn(notes=0, faults=usual_faults(arxiv_page=500)) as stand_in:
        point_at(stand_in, settings)
        output = fetch("fetch_arxiv", ARXIV_QUERY, "--page-size", "500")
        # The 429, the 503 and the slow page were all waited out.
        assert not [key for key in stand_in.faults if key[0] == "arxiv"]
    assert f"arXiv '{ARXIV_QUERY}': 2200 papers (end of results)" in output
    ids = set(Paper.objects.values_list("arxiv_id", flat=True))
    assert ids == {arxiv_id_of(index) for index in range(2200)}
    # Folded titles are one line again.
    assert Paper.objects.get(arxiv_id=arxiv_id_of(0)).title == f"{title_of(0)[:-4]} 0"
    for index in range(0, 2200, 110):  # every page is the same template: twenty of them
        paper = Paper.objects.get(arxiv_id=arxiv_id_of(index))
        assert f"arXiv {arxiv_id_of(index)}</a>" in client.get(paper.get_absolute_url()).text


# --- kill -9 half-way: a real process, its own database --------------------------------------


def manage(env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finished(process: subprocess.Popen) -> str:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err[-3000:]
    return out


def test_a_fetch_killed_half_way_is_completed_by_the_next_run(tmp_path):
    # The full venue of 3,200 notes (pages of 1,000, as OpenReview's), its own SQLite file.
    database = tmp_path / "fetch.sqlite3"
    with StandIn(notes=3200, entries=0, faults=usual_faults()) as stand_in:
        env = {
            **os.environ,
            **stand_in.urls,
            "DATABASE_URL": f"sqlite:///{database}",
            "DJANGO_SECRET_KEY": "test-only",
            "DJANGO_DEBUG": "0",
            "FETCH_TIMEOUT": "3",
        }
        env.pop("DJANGO_SETTINGS_MODULE", None)  # manage.py's own settings, not pytest's
        finished(manage(env, "migrate", "--noinput"))
        first = manage(env, "fetch_openreview", VENUE)
        deadline = time.monotonic() + 60
        while stand_in.requests < 3 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert first.poll() is None, "the fetch ended before it could be killed"
        first.send_signal(signal.SIGKILL)
        first.communicate()
        served = stand_in.requests
        output = finished(manage(env, "fetch_openreview", VENUE))
    assert 3 <= served < stand_in.requests
    assert f"OpenReview {VENUE} (API v2): 3200 notes, 3200 papers" in output
    assert "Total: 3200 created, 0 updated, 0 unchanged, 0 conflicts" in output
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT forum_id, COUNT(*) FROM papers_paper GROUP BY 1"
        ).fetchall()
    assert len(rows) == 3200 and {count for _, count in rows} == {1}
    assert {forum for forum, _ in rows} == {note_id(n) for n in range(1, 3201)}
