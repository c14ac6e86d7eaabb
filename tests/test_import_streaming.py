"""Imports stream their records: JSON lines are read line by line, and records are loaded
batch by batch as they are read, yet a bad record anywhere still leaves nothing written."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from papers.importing.bulk_rows import IMPORT_CACHE_KIB
from papers.importing.formats import read_records, read_text, text_lines
from papers.importing.pipeline import ImportErrors, import_paths
from papers.importing.records import ImportFailed
from papers.models import ImportRun, Paper, SourceRecord

pytestmark = pytest.mark.django_db


def record(n: int) -> dict:
    return {"forum_id": f"s{n}", "title": f"Paper {n}", "abstract": f"Abstract {n}."}


def write_lines(path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), "utf-8")
    return str(path)


@pytest.mark.parametrize(
    "data",
    [
        b'\xef\xbb\xbf{"a": 1}\n{"b": 2}\n',  # a BOM before the first line
        b'{"a": 1}\r\n\r\n{"b": 2}\r\n',  # Windows line ends and a blank line
        b'{"a": 1}\r{"b": 2}\r',  # old Mac line ends
        b'{"a": 1}\n{"b": "\xc3\xa9t\xc3\xa9"}',  # no newline at the end
    ],
)
def test_reading_line_by_line_gives_the_lines_of_the_whole_text(tmp_path, data):
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    whole = [(n, line) for n, line in enumerate(read_text(path).split("\n"), 1) if line]
    assert [(n, line) for n, line in text_lines(path) if line] == whole


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"a": 1}\n{"b": 2}\n{"c": "\xff"}\n', "f.jsonl:3: not UTF-8: byte 0xff"),
        (b'{"a": 1}\n\n{"b": "\x00"}\n', "f.jsonl:3: NUL character in the file"),
    ],
)
def test_reading_line_by_line_names_the_line_of_a_bad_byte(tmp_path, data, message):
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    with pytest.raises(ImportFailed) as failure:
        list(text_lines(path))
    assert message in str(failure.value)
    with pytest.raises(ImportFailed) as whole:
        read_text(path)
    assert str(whole.value) == str(failure.value)


def test_json_lines_records_come_one_by_one(tmp_path):
    path = tmp_path / "big.jsonl"
    write_lines(path, [json.dumps(record(n)) for n in range(3)] + ["not json"])
    records = read_records(path)
    assert next(records).title == "Paper 0"  # given before the bad line is reached
    with pytest.raises(ImportFailed, match=r"big.jsonl:4: invalid JSON"):
        list(records)


def test_a_bad_record_after_loaded_batches_leaves_nothing_written(tmp_path):
    good = write_lines(tmp_path / "a.jsonl", [json.dumps(record(n)) for n in range(50)])
    late_error = [json.dumps(record(n)) for n in range(50, 95)] + ['{"title": 5}']
    bad = write_lines(tmp_path / "b.jsonl", late_error)
    also_bad = write_lines(tmp_path / "c.jsonl", ["{"])

    with pytest.raises(ImportErrors) as failure:
        import_paths([good, bad, also_bad], batch_size=10)

    # Every bad file is named, each at its first problem...
    assert [str(error) for error in failure.value.errors] == [
        f"{bad}:46: field 'title' must be text, got a number",
        f"{also_bad}:1: invalid JSON: Expecting property name enclosed in double quotes (column 2)",
    ]
    # ...and the 95 good records loaded before the error are rolled back with the run.
    assert not Paper.objects.exists()
    assert not SourceRecord.objects.exists()
    assert not ImportRun.objects.exists()


def test_a_streamed_import_counts_every_record(tmp_path):
    path = write_lines(tmp_path / "a.jsonl", [json.dumps(record(n)) for n in range(25)])
    report = import_paths([path], batch_size=10)
    assert (report.total.created, report.total.unchanged) == (25, 0)
    assert Paper.objects.count() == 25
    assert list(report.files) == [path]


def test_sqlites_page_cache_is_enlarged_only_while_importing(tmp_path):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's page cache; PostgreSQL's buffers are the server's")

    def cache_size() -> int:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA cache_size")
            return cursor.fetchone()[0]

    before = cache_size()
    seen = []
    path = write_lines(tmp_path / "a.jsonl", [json.dumps(record(n)) for n in range(3)])
    import_paths([path], progress=lambda done, total: seen.append(cache_size()))
    assert seen and all(size == -IMPORT_CACHE_KIB for size in seen)
    assert cache_size() == before
