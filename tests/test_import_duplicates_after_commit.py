"""Issue 38, point 4: an import flags the likely duplicates of what it added or changed after it
commits, outside its transaction, and finds them by the keys every paper keeps (an index per
kind of key), not by reading the whole catalogue: at 100,000 papers that sweep held SQLite's
write lock for 1.6 s on every add-by-link."""

from __future__ import annotations

import pytest
from django.db import connection

from papers import duplicates
from papers.duplicate_keys import KEY_COLUMNS, stored_keys
from papers.importing import pipeline
from papers.importing.pipeline import import_records
from papers.importing.records import PaperRecord
from papers.models import Paper
from tests.factories import make_paper

SOURCE = "arxiv"
TITLE = "Attention Is All You Need"
LONG_ABSTRACT = " ".join(f"word{n}" for n in range(80)) + "."


def record(title: str, arxiv_id: str, abstract: str = "") -> PaperRecord:
    return PaperRecord(
        title=title,
        forum_id="",
        forum_url="",
        pdf_url="",
        authors=["Ada Lovelace"],
        tags=[],
        abstract=abstract,
        source=SOURCE,
        line=1,
        arxiv_id=arxiv_id,
    )


def keys_of(paper: Paper) -> dict[str, int | None]:
    paper.refresh_from_db()
    return {column: getattr(paper, column) for column in KEY_COLUMNS.values()}


@pytest.mark.django_db(transaction=True)  # the import's transaction is the outermost one
def test_an_import_flags_its_duplicates_after_it_has_committed(monkeypatch):
    existing = make_paper(TITLE)
    flagged_in_transaction = []
    flag = pipeline.flag_duplicate_papers

    def watched(*args, **kwargs):
        flagged_in_transaction.append(connection.in_atomic_block)
        return flag(*args, **kwargs)

    monkeypatch.setattr(pipeline, "flag_duplicate_papers", watched)

    report = import_records([record(TITLE.upper(), "2401.00001")], source=SOURCE)

    assert flagged_in_transaction == [False]  # after the import's commit, not inside it
    assert report.duplicates_flagged == 2  # each as a possible duplicate of the other
    added = Paper.objects.get(arxiv_id="2401.00001")
    assert added.curation_reason == f"possible duplicate of #{existing.pk}"


@pytest.mark.django_db
def test_an_import_reads_its_own_papers_not_the_catalogue(monkeypatch):
    for _ in range(40):
        make_paper()
    same_title = make_paper(TITLE)
    same_opening = make_paper("Another title", abstract=LONG_ABSTRACT)
    scanned = []
    keys = duplicates.duplicate_keys

    def counted(title, abstract):
        scanned.append(title)
        return keys(title, abstract)

    monkeypatch.setattr(duplicates, "duplicate_keys", counted)

    report = import_records(
        [
            record(TITLE, "2401.00001"),
            record("A third title", "2401.00002", LONG_ABSTRACT + " A new last sentence here."),
        ],
        source=SOURCE,
    )

    assert sorted(scanned) == ["A third title", TITLE]  # the two new papers, none of the 42
    # And their duplicates are found all the same, by title and by the abstract's opening
    # (each pair flagged both ways).
    assert report.duplicates_flagged == 4
    assert Paper.objects.get(arxiv_id="2401.00001").curation_reason.endswith(f"#{same_title.pk}")
    assert Paper.objects.get(arxiv_id="2401.00002").curation_reason.endswith(f"#{same_opening.pk}")


@pytest.mark.django_db
def test_the_keys_follow_a_title_changed_by_an_import_or_by_a_curator():
    import_records([record("First title", "2401.00001")], source=SOURCE)
    paper = Paper.objects.get(arxiv_id="2401.00001")
    assert keys_of(paper) == stored_keys("First title", "")

    import_records([record("Second title", "2401.00001")], source=SOURCE)  # the loader's update
    assert keys_of(paper) == stored_keys("Second title", "")

    paper.title = "Third title"
    paper.save(update_fields=["title"])  # a curator's edit
    assert keys_of(paper) == stored_keys("Third title", "")

    # A new paper with that title is found by the kept keys.
    report = import_records([record("Third Title", "2401.00002")], source=SOURCE)
    assert report.duplicates_flagged == 2
    assert Paper.objects.get(arxiv_id="2401.00002").curation_reason.endswith(f"#{paper.pk}")


@pytest.mark.django_db
def test_a_save_that_does_not_touch_the_text_leaves_the_keys_alone():
    paper = make_paper(TITLE)
    Paper.objects.filter(pk=paper.pk).update(duplicate_title_key=None)
    paper.needs_curation = True
    paper.save(update_fields=["needs_curation"])
    assert keys_of(paper)["duplicate_title_key"] is None
    paper.save()  # a full save does set them
    assert keys_of(paper) == stored_keys(TITLE, paper.abstract)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query planner")
@pytest.mark.django_db
@pytest.mark.parametrize("column", [*KEY_COLUMNS.values(), "untitled"])
def test_the_duplicate_lookups_use_an_index_not_a_scan_of_every_paper(column):
    if column == "untitled":  # a scan of the index of untitled papers only
        plan = Paper.objects.filter(title="").order_by().explain()
        assert "USING INDEX papers_paper_untitled" in plan, plan
        return
    plan = Paper.objects.filter(**{f"{column}__in": list(range(500))}).order_by().explain()
    assert "SCAN papers_paper" not in plan, plan
