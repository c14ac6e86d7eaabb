"""import_records: records that come from no file (a fetch) go through the same validation,
de-duplication, merge, reviews, report and import history as a file's."""

from __future__ import annotations

import pytest

from papers.importing.pipeline import ImportErrors, import_paths, import_records
from papers.importing.records import PaperRecord, ReviewRecord
from papers.models import ImportRun, Paper, Review, SourceRecord

SOURCE = "openreview:ICLR.cc/2025/Conference"


def paper(forum_id="abc123", line=1, title="A Paper", **fields) -> PaperRecord:
    values = {
        "title": title,
        "forum_id": forum_id,
        "forum_url": "",
        "pdf_url": "",
        "authors": ["Ann One", "Bo Two"],
        "tags": ["ICLR 2025", "Poster"],
        "abstract": f"The abstract of {forum_id}.",
        "source": SOURCE,
        "line": line,
        **fields,
    }
    return PaperRecord(**values)


def review(note_id="rev1", forum_id="abc123", line=1, rating=6.0) -> ReviewRecord:
    return ReviewRecord(
        forum_id=forum_id, note_id=note_id, kind="review", source=SOURCE, line=line, rating=rating
    )


@pytest.mark.django_db
def test_records_are_loaded_with_their_reviews_and_recorded_under_their_source():
    records = [paper("abc123", 1), review("rev1", "abc123", 1), paper("def456", 2)]
    report = import_records(records, source=SOURCE, invoked_by="test")
    assert list(report.files) == [SOURCE]
    total = report.total
    assert (total.created, total.updated, total.unchanged, total.reviews_created) == (2, 0, 0, 1)
    assert Paper.objects.count() == 2
    assert Review.objects.get().source == SOURCE
    assert set(SourceRecord.objects.values_list("source", flat=True)) == {SOURCE}
    run = ImportRun.objects.get()
    assert (run.invoked_by, run.created, run.files[0]["path"]) == ("test", 2, SOURCE)


@pytest.mark.django_db
def test_the_same_records_again_change_nothing():
    import_records([paper(), review()], source=SOURCE)
    report = import_records([paper(), review()], source=SOURCE)
    total = report.total
    assert (total.created, total.updated, total.unchanged) == (0, 0, 1)
    assert (total.reviews_created, total.reviews_updated, total.reviews_unchanged) == (0, 0, 1)


@pytest.mark.django_db
def test_a_repeated_record_is_kept_once_and_a_contradicting_one_fails():
    report = import_records([paper(line=1), paper(line=2)], source=SOURCE)
    assert report.total.created == 1
    with pytest.raises(ImportErrors) as caught:
        import_records([paper(line=1), paper(line=2, title="Other")], source=SOURCE)
    assert str(caught.value) == (
        f"{SOURCE}:2: forum id abc123 is also at line 1 of this file, with other content; "
        "keep one of the two records"
    )


@pytest.mark.django_db
def test_an_invalid_record_writes_nothing():
    with pytest.raises(ImportErrors) as caught:
        import_records([paper("good1", 1), paper("bad id!", 2)], source=SOURCE)
    assert "is not an OpenReview id" in str(caught.value)
    assert not Paper.objects.exists()
    assert not ImportRun.objects.exists()


@pytest.mark.django_db
def test_a_dry_run_reports_and_writes_nothing():
    report = import_records([paper()], source=SOURCE, dry_run=True)
    assert report.total.created == 1
    assert not Paper.objects.exists()


@pytest.mark.django_db
def test_progress_counts_records_against_the_total():
    calls = []
    records = [paper(f"id{n}", n) for n in range(1, 6)]
    import_records(
        records, source=SOURCE, batch_size=2, total=5, progress=lambda *a: calls.append(a)
    )
    assert calls == [(2, 5), (4, 5), (5, 5)]


@pytest.mark.django_db
def test_a_file_and_a_fetch_of_one_paper_merge_into_one(tmp_path):
    path = tmp_path / "iclr.jsonl"
    path.write_text(
        '{"forum_id": "abc123", "title": "A Paper", "abstract": "The abstract of abc123."}\n',
        encoding="utf-8",
    )
    import_paths([str(path)])
    report = import_records([paper()], source=SOURCE)
    assert (report.total.created, Paper.objects.count()) == (0, 1)
