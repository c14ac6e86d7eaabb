"""A paper's year as its sources give it: stored by the import, cited when its venue has none."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from annotations.exports import bibtex_entry, csl_record
from papers.importing.pipeline import import_paths
from papers.models import Paper

pytestmark = pytest.mark.django_db

JOURNAL_BIB = """@article{strauss2020,
  title = {Gro{\\ss}e Modelle},
  author = {Strau{\\ss}, Johann},
  journal = {Journal of Machine Learning Research},
  year = 2020,
  abstract = {Large models help students.},
  doi = {10.5555/12345.67890},
}
"""
ARXIV_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <entry>
    <id>http://arxiv.org/abs/hep-th/9901001v1</id>
    <published>1999-01-04T00:00:00Z</published>
    <title>Old Style Strings</title>
    <summary>A string theory paper from the old days.</summary>
    <author><name>E. Witten</name></author>
  </entry>
</feed>
"""


def counts(report) -> tuple[int, int, int]:
    return report.total.created, report.total.updated, report.total.unchanged


def cited_paper() -> Paper:
    return Paper.objects.prefetch_related("paper_tags__tag").get()


def test_a_journal_paper_is_cited_with_its_own_year_not_the_import_year(tmp_path):
    path = tmp_path / "zotero.bib"
    path.write_text(JOURNAL_BIB, "utf-8")
    assert counts(import_paths([str(path)])) == (1, 0, 0)
    paper = cited_paper()
    paper.author_list = ["Johann Strauß"]
    assert paper.year == 2020
    assert "year = {2020}" in bibtex_entry(paper)
    assert csl_record(paper)["issued"] == {"date-parts": [[2020]]}


def test_an_arxiv_preprint_keeps_the_year_of_its_first_version(tmp_path):
    path = tmp_path / "arxiv.atom"
    path.write_text(ARXIV_FEED, "utf-8")
    import_paths([str(path)])
    assert Paper.objects.get().year == 1999


def test_a_year_is_added_by_a_later_source_and_reimporting_changes_nothing(tmp_path):
    jsonl = tmp_path / "plain.jsonl"
    jsonl.write_text(
        '{"title": "Gro\\u00dfe Modelle", "abstract": "Large models help students.", '
        '"doi": "10.5555/12345.67890"}\n',
        "utf-8",
    )
    bib = tmp_path / "zotero.bib"
    bib.write_text(JOURNAL_BIB, "utf-8")
    import_paths([str(jsonl)])
    assert Paper.objects.get().year is None
    assert counts(import_paths([str(bib)])) == (0, 1, 0)
    assert Paper.objects.get().year == 2020
    bib.write_text(JOURNAL_BIB + "\n", "utf-8")  # a new download: read again, nothing new
    assert counts(import_paths([str(bib)])) == (0, 0, 1)


def test_papers_without_a_year_import_as_before(tmp_path: Path):
    path = tmp_path / "plain.jsonl"
    path.write_text('{"title": "T", "abstract": "An abstract."}\n', "utf-8")
    import_paths([str(path)])
    path.write_text('{"title": "T", "abstract": "An abstract."}\n\n', "utf-8")
    assert counts(import_paths([str(path)])) == (0, 0, 1)
    assert Paper.objects.get().year is None


def test_the_year_migration_makes_the_next_import_read_files_imported_before(tmp_path):
    # Without it, a file imported before years were kept is skipped as unchanged forever after.
    from django.apps import apps

    migration = importlib.import_module("papers.migrations.0020_paper_year")
    path = tmp_path / "zotero.bib"
    path.write_text(JOURNAL_BIB, "utf-8")
    import_paths([str(path)])
    assert "not read again" in "\n".join(import_paths([str(path)]).lines())
    migration.forget_imported_files(apps, None)
    assert "not read again" not in "\n".join(import_paths([str(path)]).lines())
