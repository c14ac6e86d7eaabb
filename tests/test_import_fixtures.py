"""Importing the seed documents in fixtures/: counts, order, byte-identical abstracts, re-runs."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from papers.importing.pipeline import import_paths
from papers.importing.report import ProgressBar
from papers.models import Author, Paper, Tag

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TABLE_SEED = next(FIXTURES.glob("000_*.txt"))
ABSTRACT_SEED = next(FIXTURES.glob("001_*.txt"))

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command("import_papers", *map(str, args), stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_importing_the_fixtures_directory_gives_119_papers():
    output = run(FIXTURES)
    assert Paper.objects.count() == 119
    assert Paper.objects.exclude(forum_id="").count() == 100
    assert "Total: 119 created, 0 updated, 0 unchanged, 0 conflicts" in output
    assert f"{TABLE_SEED}: 100 created" in output
    assert f"{ABSTRACT_SEED}: 19 created" in output


def test_table_authors_are_stored_in_listed_order():
    run(TABLE_SEED)
    raw = TABLE_SEED.read_text(encoding="utf-8")
    for paper in Paper.objects.all():
        row = next(line for line in raw.split("\n") if f"id={paper.forum_id} |" in line)
        listed = row.split(" | ")[3].split(",")
        stored = list(paper.authorships.order_by("position").values_list("author__name", flat=True))
        assert stored == listed
        assert paper.author_names == ", ".join(listed)
    raptor = Paper.objects.get(forum_id="GN921JHCRw")
    assert raptor.author_names.startswith("Parth Sarthi, Salman Abdullah, Aditi Tuli")


def test_every_abstract_is_byte_identical_to_its_source_cell():
    run(FIXTURES)
    table = TABLE_SEED.read_bytes().decode("utf-8")
    abstracts = ABSTRACT_SEED.read_bytes().decode("utf-8")
    for paper in Paper.objects.exclude(forum_id=""):
        assert f" | ICLR 2024,Poster | {paper.abstract} | {paper.pdf_url} |\n" in table
    for paper in Paper.objects.filter(forum_id=""):
        assert f"\n\n{paper.abstract}\n" in abstracts + "\n"  # the file has no final newline
    multiline = Paper.objects.filter(abstract__contains="\n")
    assert multiline.count() >= 10  # the seed has multi-paragraph abstracts; they kept newlines
    assert Paper.objects.filter(abstract__contains="$").exists()  # LaTeX kept


def test_tags_are_venue_and_track_added_by_nobody():
    run(FIXTURES)
    assert set(Tag.objects.values_list("kind", "name", "key", "slug")) == {
        ("venue", "ICLR 2024", "iclr 2024", "iclr-2024"),
        ("track", "Poster", "poster", "poster"),
    }
    raptor = Paper.objects.get(forum_id="GN921JHCRw")
    assert sorted(raptor.paper_tags.values_list("tag__kind", "added_by")) == [
        ("track", None),
        ("venue", None),
    ]
    untitled = Paper.objects.filter(title="")
    assert untitled.count() == 19
    assert all(p.tags.get().name == "ICLR 2024" for p in untitled)


def test_abstract_only_papers_get_no_title_and_are_flagged_for_curation():
    run(ABSTRACT_SEED)
    assert Paper.objects.count() == 19
    for paper in Paper.objects.all():
        assert paper.title == "" and paper.needs_curation
        assert paper.curation_reason == "Imported without a title"
        assert paper.display_title != ""


def test_imported_papers_carry_fingerprint_source_record_and_normalised_authors():
    run(TABLE_SEED)
    paper = Paper.objects.get(forum_id="GN921JHCRw")
    assert len(paper.abstract_fingerprint) == 64
    (source_record,) = paper.source_records.all()
    assert (source_record.source, source_record.key) == (TABLE_SEED.name, "id:GN921JHCRw")
    assert set(source_record.fields) == {
        "title",
        "forum_url",
        "pdf_url",
        "abstract",
        "authors",
        "tags",
        "publication_type",  # from its venue: a conference paper
    }
    assert Author.objects.get(name="Christopher D Manning").normalized_name == (
        "christopher d manning"
    )


def test_second_import_creates_and_updates_nothing():
    run(FIXTURES)
    before = list(Paper.objects.order_by("pk").values())
    output = run(FIXTURES)
    assert "Total: 0 created, 0 updated, 119 unchanged, 0 conflicts" in output
    assert list(Paper.objects.order_by("pk").values()) == before


def test_reimporting_the_abstract_list_after_the_table_keeps_titles():
    run(TABLE_SEED, ABSTRACT_SEED)
    titles = dict(Paper.objects.values_list("pk", "title"))
    output = run(ABSTRACT_SEED)
    assert "0 created, 0 updated, 19 unchanged" in output
    assert dict(Paper.objects.values_list("pk", "title")) == titles


def test_dry_run_reports_the_same_and_writes_nothing():
    output = run(FIXTURES, "--dry-run")
    assert "Dry run, nothing written. Would have: 119 created" in output
    assert Paper.objects.count() == 0
    assert Author.objects.count() == 0 and Tag.objects.count() == 0


def test_explicit_format_overrides_detection(tmp_path):
    path = tmp_path / "papers.data"
    path.write_text("ICLR 2024 Papers\n\nOne abstract.\n", encoding="utf-8")
    assert "1 created" in run(path, "--format", "abstracts")
    bad = tmp_path / "wrong.jsonl"
    bad.write_text('{"title": "x", "abstract": "y"}\n', encoding="utf-8")
    with pytest.raises(Exception, match="wrong.jsonl:1: no '|---|---|' line"):
        run(bad, "--format", "table")


def test_directory_import_reads_every_importable_file_in_sorted_order(tmp_path):
    (tmp_path / "b.csv").write_text("title,forum_id,abstract\nB,idB,Abstract B.\n", "utf-8")
    (tmp_path / "a.jsonl").write_text('{"title": "A", "forum_id": "idA", "abstract": "A."}\n')
    (tmp_path / "notes.md").write_text("not imported")
    report = import_paths([str(tmp_path)])
    assert list(report.files) == [str(tmp_path / "a.jsonl"), str(tmp_path / "b.csv")]
    assert sorted(Paper.objects.values_list("title", flat=True)) == ["A", "B"]


def test_progress_bar_draws_only_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal, pipe = Terminal(), io.StringIO()
    import_paths([str(TABLE_SEED)], progress=ProgressBar(terminal), batch_size=40)
    import_paths([str(TABLE_SEED)], progress=ProgressBar(pipe), batch_size=40)
    lines = TABLE_SEED.read_bytes().count(b"\n") + 1
    drawn = terminal.getvalue()
    assert drawn.startswith("\rImporting") and drawn.endswith("\n")
    # Lines read, redrawn after each of the three batches of 40 records, up to the whole file.
    read = [int(done) for done, total in re.findall(r"(\d+)/(\d+) ", drawn) if int(total) == lines]
    done = sorted(set(read) - {0})
    assert len(done) == 3 and done[-1] == lines, drawn
    assert pipe.getvalue() == ""
