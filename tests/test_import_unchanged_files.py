"""Re-importing the very file a source was last imported from reads nothing, and gives exactly
what reading it would: the shortcut is dropped whenever the source's records moved since."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from papers.importing import pipeline
from papers.importing.pipeline import ImportErrors, import_paths
from papers.models import Paper, SourceFile
from papers.services import forget_curator_edits

pytestmark = pytest.mark.django_db

RECORDS = [
    {
        "forum_id": f"forum{n}",
        "title": f"Paper {n}",
        "abstract": f"An abstract about topic {n}.",
        "authors": ["Ann One"],
        "tags": ["ICLR 2024", "Poster"],
    }
    for n in range(5)
]


def write_jsonl(path: Path, records: list[dict]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return str(path)


def counts(report) -> tuple[int, int, int]:
    return report.total.created, report.total.updated, report.total.unchanged


def test_the_same_file_again_is_not_read_and_reports_its_records_unchanged(tmp_path, monkeypatch):
    path = write_jsonl(tmp_path / "corpus.jsonl", RECORDS)
    assert counts(import_paths([path])) == (5, 0, 0)
    monkeypatch.setattr(pipeline, "read_records", _refuse_to_read)

    report = import_paths([path])

    assert counts(report) == (0, 0, 5)
    assert "not read again" in "\n".join(report.lines())


def test_a_newer_download_with_one_change_is_read(tmp_path):
    import_paths([write_jsonl(tmp_path / "v1" / "corpus.jsonl", RECORDS)])
    changed = [dict(RECORDS[0], title="Renamed"), *RECORDS[1:]]

    report = import_paths([write_jsonl(tmp_path / "v2" / "corpus.jsonl", changed)])

    assert counts(report) == (0, 1, 4)
    assert Paper.objects.filter(title="Renamed").count() == 1


def test_going_back_to_an_older_file_of_the_source_applies_it(tmp_path):
    v1 = write_jsonl(tmp_path / "v1" / "corpus.jsonl", RECORDS)
    v2 = write_jsonl(
        tmp_path / "v2" / "corpus.jsonl", [dict(RECORDS[0], title="Renamed"), *RECORDS[1:]]
    )
    import_paths([v1])
    import_paths([v2])

    assert counts(import_paths([v1])) == (0, 1, 4)
    assert not Paper.objects.filter(title="Renamed").exists()


def test_a_paper_deleted_since_is_imported_again_as_reading_the_file_would(tmp_path):
    path = write_jsonl(tmp_path / "corpus.jsonl", RECORDS)
    import_paths([path])
    Paper.objects.filter(forum_id="forum3").delete()

    assert counts(import_paths([path])) == (1, 0, 4)
    assert Paper.objects.filter(forum_id="forum3").exists()


def test_released_curator_edits_are_written_by_the_same_file(tmp_path):
    path = write_jsonl(tmp_path / "corpus.jsonl", RECORDS)
    import_paths([path])
    Paper.objects.filter(forum_id="forum1").update(title="Curated", curator_edited_fields=["title"])
    assert counts(import_paths([path])) == (0, 0, 5)  # the curator's title stays
    assert Paper.objects.get(forum_id="forum1").title == "Curated"

    forget_curator_edits(papers=Paper.objects.filter(forum_id="forum1"))

    assert counts(import_paths([path])) == (0, 1, 4)
    assert Paper.objects.get(forum_id="forum1").title == "Paper 1"


def test_another_format_reads_the_file(tmp_path, monkeypatch):
    path = write_jsonl(tmp_path / "corpus.jsonl", RECORDS)
    import_paths([path])
    read = []
    real_read = pipeline.read_records

    def spy(path, format):
        read.append(format)
        return real_read(path, format)

    monkeypatch.setattr(pipeline, "read_records", spy)

    assert counts(import_paths([path], format="jsonl")) == (0, 0, 5)
    assert read == ["jsonl"]


def test_files_sharing_one_source_are_always_read(tmp_path, monkeypatch):
    a = write_jsonl(tmp_path / "a.jsonl", RECORDS[:3])
    b = write_jsonl(tmp_path / "b.jsonl", RECORDS[3:])
    import_paths([a, b], source="lab zotero")
    assert not SourceFile.objects.exists()
    read = []
    real_read = pipeline.read_records
    monkeypatch.setattr(
        pipeline, "read_records", lambda path, format: read.append(path) or real_read(path, format)
    )

    assert counts(import_paths([a, b], source="lab zotero")) == (0, 0, 5)
    assert len(read) == 2


def test_a_dry_run_or_a_failed_import_remembers_no_file(tmp_path):
    path = write_jsonl(tmp_path / "corpus.jsonl", RECORDS)
    import_paths([path], dry_run=True)
    assert not SourceFile.objects.exists()

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"title": \n', "utf-8")
    with pytest.raises(ImportErrors):
        import_paths([path, str(bad)])
    assert not SourceFile.objects.exists()
    assert not Paper.objects.exists()


def test_one_unchanged_file_beside_a_changed_one(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", RECORDS[:3])
    b = write_jsonl(tmp_path / "b.jsonl", RECORDS[3:])
    import_paths([a, b])
    b = write_jsonl(tmp_path / "b.jsonl", [dict(RECORDS[3], title="Renamed"), RECORDS[4]])

    report = import_paths([a, b])

    assert counts(report) == (0, 1, 4)
    assert report.files[a].unread and not report.files[b].unread


def _refuse_to_read(path, format):
    raise AssertionError(f"{path} was read")
