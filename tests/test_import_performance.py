"""The importer issues a fixed handful of queries per batch, never per record."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.duplicates import READ_CHUNK
from papers.importing import bulk_rows
from papers.importing.pipeline import import_paths
from papers.models import Authorship, Paper, PaperTag, SourceRecord
from papers.querysets import identifier_in

pytestmark = pytest.mark.django_db

RECORDS = 2_000
BATCH = 100
BATCHES = RECORDS // BATCH
# Per batch: what the source supplied before, papers by forum id, papers by fingerprint,
# current authors, current tags, authors by name, allocate author ids, insert authors, allocate
# paper ids, insert papers, update papers (SQLite may split a bulk update), drop replaced
# authorships, insert authorships, insert paper-tags, insert or update source records: at most
# 14 on either backend; a first import updates and drops nothing and reads no current state:
# 11. Plus, once: BEGIN and COMMIT, the import run's insert and completion, whether any paper was
# ever merged, the tags merged into others (TagAlias), the first batch's tag lookup, slug check
# and creation, the search change log, and on SQLite the page cache size (read, enlarged, put
# back) or on PostgreSQL the planner settings (one), and the file's last hash (read; after the
# load its source's record count, and its row deleted and inserted).
PER_BATCH = 14
PER_BATCH_FIRST = 11
# After the load has committed, the look for duplicates of the changed papers
# (papers.duplicates): a transaction (a savepoint in a test) and its end, the untitled papers,
# the changed papers READ_CHUNK at a time, and the papers that share their titles' keys,
# READ_CHUNK keys at a time (these abstracts are too short to have keys). No sweep of the
# catalogue.
DUPLICATE_CHECK = 3 + 2 * -(-RECORDS // READ_CHUNK)
# On PostgreSQL, the import lock too (one import at a time).
FIXED = 18 + DUPLICATE_CHECK + (connection.vendor == "postgresql")


def write_corpus(path, *, title="Paper"):
    path.parent.mkdir(exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for i in range(RECORDS):
            record = {
                "title": f"{title} {i}",
                "forum_id": f"perf{i}",
                "abstract": f"Abstract number {i} about topic {i % 7}.",
                "authors": [f"Author {i}", f"Author {i + 1}", f"Shared Author {i % 40}"],
                "tags": ["ICLR 2024", "Oral" if i % 10 == 0 else "Poster"],
                "pdf": f"https://openreview.net/pdf?id=perf{i}",
            }
            out.write(json.dumps(record) + "\n")
    return str(path)


def test_first_import_queries_are_bounded_per_batch(tmp_path, django_assert_max_num_queries):
    path = write_corpus(tmp_path / "corpus.jsonl")
    with django_assert_max_num_queries(FIXED + BATCHES * PER_BATCH_FIRST):
        report = import_paths([path], batch_size=BATCH)
    assert report.total.created == RECORDS
    assert Paper.objects.count() == RECORDS
    assert Authorship.objects.count() == 3 * RECORDS
    assert PaperTag.objects.count() == 2 * RECORDS


def test_unchanged_reimport_reads_one_query_per_batch(tmp_path, django_assert_max_num_queries):
    import_paths([write_corpus(tmp_path / "v1" / "corpus.jsonl")], batch_size=BATCH)
    # The same records in a file that is not byte for byte the one imported (one more blank
    # line): the file is read, and per batch only what the source supplied last time is: its
    # digests match, nothing else is read.
    path = write_corpus(tmp_path / "v2" / "corpus.jsonl")
    with open(path, "a", encoding="utf-8") as out:
        out.write("\n")
    with django_assert_max_num_queries(FIXED - DUPLICATE_CHECK + BATCHES):
        report = import_paths([path], batch_size=BATCH)
    assert (report.total.created, report.total.updated, report.total.unchanged) == (0, 0, RECORDS)


def test_reimporting_the_same_file_reads_a_fixed_handful_of_queries(
    tmp_path, django_assert_max_num_queries
):
    path = write_corpus(tmp_path / "corpus.jsonl")
    import_paths([path], batch_size=BATCH)
    # BEGIN, COMMIT, the run's insert and completion, whether any paper was merged, the
    # file's last hash and its source's record count, the search change log, SQLite's cache.
    with django_assert_max_num_queries(FIXED - DUPLICATE_CHECK - 5):
        report = import_paths([path], batch_size=BATCH)
    assert (report.total.created, report.total.updated, report.total.unchanged) == (0, 0, RECORDS)


@pytest.mark.slow
def test_changed_reimport_is_bounded_per_batch(tmp_path, django_assert_max_num_queries):
    import_paths([write_corpus(tmp_path / "v1.jsonl")], batch_size=BATCH)
    path = write_corpus(tmp_path / "v2.jsonl", title="Renamed")
    with django_assert_max_num_queries(FIXED + BATCHES * PER_BATCH):
        report = import_paths([path], batch_size=BATCH)
    assert report.total.updated == RECORDS
    assert Paper.objects.filter(title__startswith="Renamed").count() == RECORDS


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query planner")
@pytest.mark.parametrize("field", ["forum_id", "arxiv_id", "doi", "abstract_fingerprint"])
def test_identity_lookups_use_an_index_not_a_scan_of_every_paper(field):
    # A scan per batch made a first import quadratic: 12 of its 58 s at 100,000 papers.
    values = [f"value{i}" for i in range(500)]
    plan = Paper.objects.filter(identifier_in(field, values)).explain()
    assert "SCAN papers_paper" not in plan, plan


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statistics")
@pytest.mark.django_db(transaction=True)  # the import's transaction is the outermost one
def test_a_large_import_analyses_its_tables_as_they_grow(tmp_path, monkeypatch):
    # Blind to the rows the import inserted, the planner filtered every source record of the
    # file for each batch's keys: quadratic, half of a 1,000,000-paper import's time.
    monkeypatch.setattr(bulk_rows, "ANALYZE_FIRST_AT", 500)
    path = tmp_path / "corpus.jsonl"
    write_corpus(path)
    with CaptureQueriesContext(connection) as queries:
        import_paths([str(path)], batch_size=BATCH)
    analyses = [q["sql"] for q in queries if q["sql"].startswith("ANALYZE")]
    # At 500 records, then each time the papers double: 1,000 and 2,000.
    assert len(analyses) == 3
    assert all("papers_sourcerecord" in sql for sql in analyses)
    plan = SourceRecord.objects.filter(source="corpus.jsonl", key__in=["id:perf1", "id:perf2"])
    assert "key" in plan.explain().split("Cond:", 1)[-1]  # the keys are looked up in the index
