"""Issue 27, point 3: equivalent values are not conflicts. Two Zotero exports of one library
(BibTeX writing `S$Ω$I`, RIS `S$\\Omega$I`) imported in turn three times report 0 updated from
the second round on, and neither round lists a conflict; one OpenReview PDF in two URL shapes
and whitespace are no disagreement either, while a real difference still is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from papers.importing.equivalence import equivalent
from papers.importing.pipeline import import_paths
from papers.models import ImportConflict, Paper

pytestmark = pytest.mark.django_db

DATA = Path(__file__).parent / "data" / "curation"


def counts(report) -> tuple[int, int, int, int]:
    total = report.total
    return total.created, total.updated, total.unchanged, len(total.conflicts)


def rewritten(source: Path, directory: Path, round_number: int) -> str:
    """The export again, as a new download: same records, other bytes (so it is read)."""
    path = directory / source.name
    shutil.copy(source, path)
    with path.open("a", encoding="utf-8") as out:
        out.write("\n" * round_number)
    return str(path)


def test_bibtex_and_ris_exports_of_one_library_in_turn_update_nothing_from_round_two(tmp_path):
    rounds = []
    for number in range(1, 4):
        bib = import_paths([rewritten(DATA / "zotero.bib", tmp_path, number)])
        ris = import_paths([rewritten(DATA / "zotero.ris", tmp_path, number)])
        rounds.append((counts(bib), counts(ris)))
    # Round one: the RIS export adds the PDF link the BibTeX one lacks; the titles and
    # abstracts it writes with \Omega are the BibTeX export's Ω, so no conflict.
    assert rounds[0] == ((2, 0, 0, 0), (0, 1, 1, 0))
    assert rounds[1] == rounds[2] == ((0, 0, 2, 0), (0, 0, 2, 0))
    assert not ImportConflict.objects.exists()
    paper = Paper.objects.get(forum_id="LuT2TmA5ry")
    assert paper.title == "S$Ω$I: Score-based O-INFORMATION Estimation"  # as first given


def write(path: Path, *records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


PAPER = {"title": "A Paper", "forum_id": "Fx1", "abstract": "An abstract.", "authors": ["A B"]}


@pytest.mark.parametrize(
    ("field", "first", "second"),
    [
        (
            "pdf",
            "https://openreview.net/pdf?id=Fx1",
            "https://openreview.net/pdf/0123456789abcdef0123456789abcdef01234567.pdf",
        ),
        ("title", "A  Paper about\n$\\alpha$-Divergences", "A Paper about $α$-Divergences"),
        ("abstract", "An abstract with $\\Omega$.", "An abstract   with $Ω$."),
        ("doi", "10.1234/ABC", "10.1234/abc"),
    ],
)
def test_one_value_written_two_ways_by_two_sources_is_no_conflict(tmp_path, field, first, second):
    import_paths([write(tmp_path / "a.jsonl", PAPER | {field: first})])
    report = import_paths([write(tmp_path / "b.jsonl", PAPER | {field: second})])
    assert counts(report) == (0, 0, 1, 0)
    assert not ImportConflict.objects.exists()


def test_a_real_difference_is_still_a_conflict(tmp_path):
    import_paths([write(tmp_path / "a.jsonl", PAPER | {"title": "Monte Carlo Methods"})])
    report = import_paths([write(tmp_path / "b.jsonl", PAPER | {"title": "Monte carlo methods"})])
    assert counts(report) == (0, 1, 0, 1)


def test_an_attachment_of_another_forum_is_not_the_same_pdf():
    attachment = "https://openreview.net/pdf/0123456789abcdef0123456789abcdef01234567.pdf"
    assert equivalent("pdf_url", "https://openreview.net/pdf?id=Fx1", attachment, "Fx1")
    assert not equivalent("pdf_url", "https://openreview.net/pdf?id=Fx2", attachment, "Fx1")
    assert not equivalent("pdf_url", "https://arxiv.org/pdf/2401.00001", attachment, "Fx1")
    assert equivalent(
        "pdf_url", "http://openreview.net/pdf?id=Fx1", "https://openreview.net/pdf?id=Fx1"
    )
