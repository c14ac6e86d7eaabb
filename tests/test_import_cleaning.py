"""Issue 27, point 1: real data imported whole. A NeurIPS-shaped file (several keywords in one
string over 100 characters, bidi-wrapped and zero-width-spaced names, titles and keywords, one
name listed twice, an over-long title) imports every record, and the report says each cleaning
with file:line; a fetch is cleaned the same way, its report naming the fetched record."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import httpx
import pytest
import respx
from django.core.management import call_command

from bench.standins import VENUE, page, v2_note
from papers.models import Author, ImportRun, Paper, TagKind
from papers.sources.runs import fetch_venue_into_catalogue
from papers.text import MAX_TITLE

pytestmark = pytest.mark.django_db

NEURIPS = Path(__file__).parent / "data" / "curation" / "neurips_like.jsonl"
OPENREVIEW = "https://openreview.test"


def run(*args) -> str:
    out = io.StringIO()
    call_command("import_papers", *map(str, args), stdout=out, stderr=io.StringIO())
    return out.getvalue()


def keywords(paper: Paper) -> list[str]:
    return sorted(paper.tags.filter(kind=TagKind.KEYWORD).values_list("name", flat=True))


def test_a_neurips_like_file_imports_every_record_and_reports_each_cleaning():
    output = run(NEURIPS)
    assert "Total: 5 created, 0 updated, 0 unchanged, 0 conflicts; 7 values cleaned" in output
    where = f"{NEURIPS}:{{}} (https://openreview.net/forum?id=nips23a0{{}}): "
    for line, note in [
        (1, "keyword 'Tensor Rematerialization; Gradient Check'... split into 5 keywords"),
        (2, "author name 'Xia Li': removed invisible character(s) U+202B, U+202C"),
        (2, "author name 'Jürgen Schmidhuber': removed invisible character(s) U+2068, U+2069"),
        (3, "title 'Zero Shot Reasoning with Language Models': removed invisible character(s) "),
        (3, "keyword 'large language models': removed invisible character(s) U+200B"),
        (3, "keyword 'reasoning': removed invisible character(s) U+FEFF"),
        (4, "title 'Rethinking the Memory Wall: Tensor Remat'... is 608 characters long: cut "),
    ]:
        assert where.format(line, line) + note in output, note

    split = Paper.objects.get(forum_id="nips23a01")
    assert keywords(split) == [
        "Activation Recomputation",
        "Compilers",
        "Deep Learning Systems",
        "Gradient Checkpointing",
        "Memory Efficient Training",
        "Tensor Rematerialization",
    ]
    wrapped = Paper.objects.get(forum_id="nips23a02")
    assert wrapped.author_names == "Xia Li, Jürgen Schmidhuber, Wei Zhang"
    spaced = Paper.objects.get(forum_id="nips23a03")
    assert spaced.title == "Zero Shot Reasoning with Language Models"
    assert keywords(spaced) == ["large language models", "reasoning"]
    long = Paper.objects.get(forum_id="nips23a04")
    assert len(long.title) <= MAX_TITLE and long.title.endswith(" Checkpointing for…")
    # The run keeps the notes for the import history.
    (counts,) = ImportRun.objects.get().files
    assert counts["cleanings"] == 7 and len(counts["cleaned"]) == 7


def test_the_import_history_lists_what_was_cleaned(admin_client):
    run(NEURIPS)
    run_id = ImportRun.objects.get().pk
    page = admin_client.get(f"/admin/papers/importrun/{run_id}/change/").content.decode()
    assert "Cleaned (7 in all; the first of each file listed):" in page
    assert f"<li>{NEURIPS}:3 (https://openreview.net/forum?id=nips23a03): keyword" in page


def test_two_people_of_one_name_on_one_paper_stay_two_authorships(tmp_path):
    run(NEURIPS)
    paper = Paper.objects.get(forum_id="nips23a03")
    assert paper.author_names == "Xia Li, Ming Zhou, Xia Li"
    assert paper.authorships.count() == 3
    first, second = (row.author for row in paper.authorships.filter(author__name="Xia Li"))
    assert first != second
    # The Xia Li of the other paper (bidi-wrapped there) is the first one, the oldest.
    assert Paper.objects.get(forum_id="nips23a02").authors.filter(pk=first.pk).exists()

    # The same records in a rewritten file find the same two people again: nothing changes.
    again = tmp_path / NEURIPS.name
    shutil.copy(NEURIPS, again)
    with again.open("a", encoding="utf-8") as out:
        out.write("\n")
    assert "Total: 0 created, 0 updated, 5 unchanged" in run(again)
    assert Author.objects.filter(name="Xia Li").count() == 2
    assert paper.authorships.count() == 3


def test_one_name_twice_with_one_profile_id_is_still_one_author(tmp_path):
    record = {
        "title": "T",
        "forum_id": "one1",
        "abstract": "A.",
        "authors": ["Xia Li", "Xia Li"],
    }
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    run(path)
    # Without profile ids two mentions are two people; this is what the file says.
    assert Paper.objects.get().authorships.count() == 2


@pytest.fixture
def openreview(settings):
    settings.OPENREVIEW_API_URL = OPENREVIEW


@respx.mock
def test_a_fetch_is_cleaned_the_same_way_and_names_the_fetched_record(openreview):
    note = v2_note(
        "Fetch_1",
        "Sparse\u200b Attention",
        authors=["\u202bXia Li\u202c", "Bo Two"],
        authorids=["~Xia_Li1", "~Bo_Two1"],
        keywords=["Tensor Rematerialization; Gradient Checkpointing; Memory Efficient Training"],
    )
    respx.get(f"{OPENREVIEW}/notes").mock(
        side_effect=lambda request: httpx.Response(
            200, json=page({("content.venueid", VENUE): [note]}, request.url.params)
        )
    )
    result = fetch_venue_into_catalogue(VENUE)
    report = "\n".join(result.report.lines())
    where = f"openreview:{VENUE}:1 (https://openreview.net/forum?id=Fetch_1): "
    assert where + "title 'Sparse Attention': removed invisible character(s) U+200B" in report
    assert where + "author name 'Xia Li': removed invisible character(s) U+202B, U+202C" in report
    assert where + "keyword 'Tensor Rematerialization; Gradient Check'... split into 3" in report
    paper = Paper.objects.get(forum_id="Fetch_1")
    assert paper.title == "Sparse Attention"
    assert paper.author_names == "Xia Li, Bo Two"
    assert len(keywords(paper)) == 3
