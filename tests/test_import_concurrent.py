"""Issue 38, point 4: imports one at a time per database. Two imports of one new paper at once
(two members adding one arXiv link, a feed and a member) give one paper and no error: on
PostgreSQL the second import waits on the import lock (pg_advisory_xact_lock) and then finds
the first one's paper; on SQLite the immediate transaction already makes it wait."""

from __future__ import annotations

import threading

import pytest

from papers.importing import loader as loader_module
from papers.importing.pipeline import import_records
from papers.importing.records import PaperRecord
from papers.models import Paper, SourceRecord

SOURCE = "arxiv"
# How long an import that reached its writes waits for the other to reach them too. Without the
# lock both get there (each having found no paper) and go on at once; with it the other is
# still waiting for the lock, and this one goes on alone after this long.
MEET_WAIT = 2.0


def record() -> PaperRecord:
    return PaperRecord(
        title="One paper added twice at once",
        forum_id="",
        forum_url="",
        pdf_url="",
        authors=["Ada Lovelace"],
        tags=[],
        abstract="",
        source=SOURCE,
        line=1,
        arxiv_id="2401.00001",
    )


@pytest.fixture
def writes_meet(monkeypatch):
    """Each import, once it has matched its records and before it writes, waits (up to
    MEET_WAIT) for the other: the moment at which two unserialised imports both believe the
    paper is new."""
    meeting = threading.Barrier(2, timeout=MEET_WAIT)
    write = loader_module.Loader._write

    def meet_then_write(self, matches):
        try:
            meeting.wait()
        except threading.BrokenBarrierError:
            pass  # the other import is not here: it is waiting for this one to commit
        return write(self, matches)

    monkeypatch.setattr(loader_module.Loader, "_write", meet_then_write)


@pytest.mark.slow  # two threads, each with its own database connection
@pytest.mark.django_db(transaction=True)
def test_two_imports_of_one_new_paper_at_once_give_one_paper(shared_database, writes_meet):
    shared_database.share()

    def add():
        return import_records([record()], source=SOURCE, invoked_by="test")

    reports = shared_database.at_once([add, add])  # raises what either import raised

    assert shared_database.read(lambda: Paper.objects.filter(arxiv_id="2401.00001").count()) == 1
    assert shared_database.read(lambda: SourceRecord.objects.count()) == 1
    # One created it, the other found it (its record unchanged since the first's).
    assert sorted(report.total.created for report in reports) == [0, 1]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_imports_of_different_papers_at_once_give_both(shared_database, writes_meet):
    """The positive control: serialised, both imports still write their own paper."""
    shared_database.share()
    other = record()
    other.arxiv_id, other.title = "2401.00002", "Another paper"

    shared_database.at_once(
        [
            lambda: import_records([record()], source=SOURCE),
            lambda: import_records([other], source=SOURCE),
        ]
    )

    assert shared_database.read(lambda: Paper.objects.count()) == 2
