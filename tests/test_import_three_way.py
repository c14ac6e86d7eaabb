"""Sources that agree to differ: each import changes only what its own source changed since that
source's last import (a three-way merge per source), and a disagreement is listed once."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from papers.importing.pipeline import import_paths
from papers.models import ImportConflict, Paper, SourceRecord
from papers.services import forget_curator_edits

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
# The ICLR 2024 corpus lives beside the repository ("../shared/corpus/"), wherever the checkout
# sits below the folder that holds it.
CORPUS = next(
    (
        folder / "shared" / "corpus" / "iclr2024.jsonl"
        for folder in Path(settings.BASE_DIR).resolve().parents
        if (folder / "shared" / "corpus" / "iclr2024.jsonl").exists()
    ),
    Path(settings.BASE_DIR).parent / "shared" / "corpus" / "iclr2024.jsonl",
)

pytestmark = pytest.mark.django_db

PAPER = {
    "forum_id": "abc123",
    "title": "Score Matching at Scale",
    "abstract": "We study score matching.",
    "authors": ["Ann One", "Bob Two"],
    "tags": ["ICLR 2024", "Poster"],
}


def write_jsonl(path: Path, *records: dict) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return str(path)


def counts(report) -> tuple[int, int, int, int]:
    total = report.total
    return total.created, total.updated, total.unchanged, len(total.conflicts)


@pytest.fixture
def two_sources(tmp_path) -> tuple[str, str]:
    """Source A and source B: the same paper, B with a revised abstract and a PDF link."""
    a = write_jsonl(tmp_path / "openreview.jsonl", PAPER)
    revised = {
        **PAPER,
        "abstract": "We study score matching, revised.",
        "pdf": "https://x.org/p.pdf",
    }
    b = write_jsonl(tmp_path / "corpus.jsonl", revised)
    return a, b


def test_alternating_sources_update_nothing_from_the_second_round_on(two_sources):
    a, b = two_sources
    assert counts(import_paths([a])) == (1, 0, 0, 0)
    # B brings another abstract: applied, and listed as a disagreement with A's.
    assert counts(import_paths([b])) == (0, 1, 0, 1)
    for _ in range(3):
        assert counts(import_paths([a])) == (0, 0, 1, 0)
        assert counts(import_paths([b])) == (0, 0, 1, 0)
    paper = Paper.objects.get()
    assert paper.abstract == "We study score matching, revised."
    assert paper.pdf_url == "https://x.org/p.pdf"


def test_a_disagreement_is_listed_once_with_both_values(two_sources):
    a, b = two_sources
    import_paths([a])
    report = import_paths([b])
    (conflict,) = report.total.conflicts
    assert "abstract differs from another source's" in str(conflict)
    import_paths([a])
    import_paths([b])

    listed = ImportConflict.objects.get()
    assert (listed.kind, listed.field, listed.source) == ("sources", "abstract", "corpus.jsonl")
    assert listed.previous == "We study score matching."
    assert listed.incoming == "We study score matching, revised."
    assert listed.paper == Paper.objects.get()


def test_a_source_that_changes_its_own_value_again_is_applied(two_sources, tmp_path):
    a, b = two_sources
    import_paths([a])
    import_paths([b])
    # A publishes a new title; B never supplied another one, so nothing is in dispute.
    write_jsonl(tmp_path / "openreview.jsonl", {**PAPER, "title": "Score Matching at Scale, v2"})
    assert counts(import_paths([a])) == (0, 1, 0, 0)
    # A's abstract is still the one it gave before: B's revision stays.
    paper = Paper.objects.get()
    assert paper.title == "Score Matching at Scale, v2"
    assert paper.abstract == "We study score matching, revised."


def test_a_newer_download_of_the_same_file_is_the_same_source(tmp_path):
    import_paths([write_jsonl(tmp_path / "old" / "papers.jsonl", PAPER)])
    newer = {**PAPER, "abstract": "We study score matching, second edition."}
    report = import_paths([write_jsonl(tmp_path / "new" / "papers.jsonl", newer)])
    assert counts(report) == (0, 1, 0, 0)  # its own change: no disagreement
    assert Paper.objects.get().abstract == "We study score matching, second edition."
    assert SourceRecord.objects.get().source == "papers.jsonl"


def test_a_source_does_not_bring_back_what_another_changed_in_one_import(two_sources):
    a, b = two_sources
    import_paths([a, b])  # one import, two files: as two imports in file order
    assert counts(import_paths([a, b])) == (0, 0, 2, 0)
    assert Paper.objects.get().abstract == "We study score matching, revised."


def test_an_unchanged_record_is_not_read_again(two_sources, django_assert_max_num_queries):
    a, _ = two_sources
    import_paths([a])
    with open(a, "a", encoding="utf-8") as out:  # the same record, not the same file
        out.write("\n")
    # Per batch only what the source supplied before is read; no paper, author or tag. (The
    # import's own statements: its run, the merge check, SQLite's page cache size, the file's
    # last hash and, after the load, its source's record count and its row replaced.)
    with django_assert_max_num_queries(13) as captured:
        report = import_paths([a])
    assert counts(report) == (0, 0, 1, 0)
    read = [q["sql"] for q in captured.captured_queries if 'FROM "papers_paper"' in q["sql"]]
    assert read == []


def test_forgetting_curator_edits_lets_the_sources_write_again(tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", PAPER)
    import_paths([path])
    Paper.objects.update(title="Curated", curator_edited_fields=["title"])
    assert counts(import_paths([path])) == (0, 0, 1, 0)  # the curator's title stays

    assert forget_curator_edits(papers=Paper.objects.all()) == 1
    assert counts(import_paths([path])) == (0, 1, 0, 0)
    assert Paper.objects.get().title == PAPER["title"]


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.exists(), reason=f"the ICLR 2024 corpus is not at {CORPUS}")
def test_fixtures_and_corpus_alternately_update_nothing_from_the_second_round_on():
    fixtures, corpus = str(FIXTURES), str(CORPUS)
    import_paths([fixtures])
    first = import_paths([corpus])
    assert first.total.updated > 0  # the corpus revises papers the seeds also have
    for _ in range(2):
        for path in (fixtures, corpus):
            report = import_paths([path])
            assert (report.total.created, report.total.updated) == (0, 0)
            assert report.total.conflicts == []
    assert Paper.objects.count() == 2263


def test_files_named_differently_are_one_source_when_the_import_names_it(tmp_path):
    first = write_jsonl(tmp_path / "notes-2024-05.jsonl", PAPER)
    newer = {**PAPER, "abstract": "We study score matching, second edition."}
    second = write_jsonl(tmp_path / "notes-2024-06.jsonl", newer)
    call_command("import_papers", first, "--source", "OpenReview", stdout=io.StringIO())
    out = io.StringIO()
    call_command("import_papers", second, "--source", "OpenReview", stdout=out)
    # Its own change, not a disagreement with another source.
    assert "Total: 0 created, 1 updated, 0 unchanged, 0 conflicts" in out.getvalue()
    assert SourceRecord.objects.get().source == "OpenReview"


@pytest.mark.parametrize("name", ["", "   ", "x" * 201])
def test_a_source_name_must_be_given_and_short(tmp_path, name):
    path = write_jsonl(tmp_path / "a.jsonl", PAPER)
    with pytest.raises(CommandError, match="a source name of 1 to 200 characters"):
        call_command("import_papers", path, "--source", name, stdout=io.StringIO())
    assert not Paper.objects.exists()
