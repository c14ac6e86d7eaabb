"""How an import knows a paper again: by forum id, then arXiv id, then DOI, then abstract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from papers.importing.pipeline import import_paths
from papers.models import Paper

pytestmark = pytest.mark.django_db


def write_jsonl(path: Path, *records: dict) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return str(path)


def created_updated(report) -> tuple[int, int]:
    return report.total.created, report.total.updated


def test_a_reference_without_abstract_enriches_the_paper_with_its_arxiv_id(tmp_path):
    feed = write_jsonl(
        tmp_path / "arxiv.jsonl",
        {"title": "Flows", "abstract": "We flow.", "arxiv_id": "arXiv:2310.01234v2"},
    )
    library = write_jsonl(
        tmp_path / "zotero.jsonl",
        {"title": "Flows", "arxiv_id": "2310.01234", "doi": "https://doi.org/10.1000/ABC"},
    )
    import_paths([feed])
    assert created_updated(import_paths([library])) == (0, 1)
    paper = Paper.objects.get()
    assert (paper.arxiv_id, paper.doi, paper.abstract) == ("2310.01234", "10.1000/abc", "We flow.")


def test_a_paper_known_only_by_its_doi_is_found_again(tmp_path):
    path = write_jsonl(tmp_path / "refs.jsonl", {"title": "Old Paper", "doi": "10.1000/old"})
    assert created_updated(import_paths([path])) == (1, 0)
    assert created_updated(import_paths([path])) == (0, 0)
    richer = write_jsonl(
        tmp_path / "other.jsonl",
        {"title": "Old Paper", "doi": "10.1000/OLD", "abstract": "Now with an abstract."},
    )
    assert created_updated(import_paths([richer])) == (0, 1)
    assert Paper.objects.get().abstract == "Now with an abstract."


def test_records_without_forum_id_match_by_abstract_beside_records_matched_by_id(tmp_path):
    # One batch: one record found by its forum id, one only by its abstract. (The second was
    # once taken for found because the first paper's empty arXiv id looked like its own.)
    seeded = write_jsonl(
        tmp_path / "seed.jsonl",
        {"forum_id": "f1", "title": "One", "abstract": "First abstract."},
        {"forum_id": "f2", "title": "Two", "abstract": "Second abstract."},
    )
    import_paths([seeded])
    later = write_jsonl(
        tmp_path / "list.jsonl",
        {"forum_id": "f1", "title": "One", "abstract": "First abstract."},
        {"title": "Two", "abstract": "Second abstract.", "pdf": "https://x.org/2.pdf"},
    )
    assert created_updated(import_paths([later])) == (0, 1)
    assert Paper.objects.count() == 2
    assert Paper.objects.get(forum_id="f2").pdf_url == "https://x.org/2.pdf"


def test_an_arxiv_id_held_by_a_paper_with_another_forum_id_is_not_taken_twice(tmp_path):
    import_paths(
        [
            write_jsonl(
                tmp_path / "a.jsonl", {"forum_id": "g1", "title": "G", "arxiv_id": "2401.00001"}
            )
        ]
    )
    report = import_paths(
        [
            write_jsonl(
                tmp_path / "b.jsonl", {"forum_id": "f1", "title": "F", "arxiv_id": "2401.00001"}
            )
        ]
    )
    # Two forum ids, two papers; the arXiv id stays with the paper that had it first.
    assert created_updated(report) == (1, 0)
    assert Paper.objects.get(forum_id="g1").arxiv_id == "2401.00001"
    assert Paper.objects.get(forum_id="f1").arxiv_id == ""


def test_an_abstract_only_record_takes_the_arxiv_id_of_a_later_source(tmp_path):
    import_paths([write_jsonl(tmp_path / "list.jsonl", {"title": "", "abstract": "Shared text."})])
    report = import_paths(
        [
            write_jsonl(
                tmp_path / "arxiv.jsonl",
                {"title": "Named", "abstract": "Shared text.", "arxiv_id": "2402.00002"},
            )
        ]
    )
    assert created_updated(report) == (0, 1)
    paper = Paper.objects.get()
    assert (paper.title, paper.arxiv_id, paper.needs_curation) == ("Named", "2402.00002", False)


ARXIV_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <entry>
    <id>http://arxiv.org/abs/2310.01234v2</id>
    <published>2023-10-02T17:24:44Z</published>
    <title>Hyperbolic Cones in the Poincar\\'e Ball</title>
    <summary>Entailment cones in the Poincar\\'e ball, with R{\\'e}nyi DP and Erd\\H{o}s graphs
  at a $\\mathcal{O}(\\sqrt{n})$ cost.</summary>
    <author><name>Ann One</name></author>
  </entry>
</feed>
"""
ZOTERO_BIB = """@article{one2023cones,
  title = {Hyperbolic Cones in the Poincar{\\'e} Ball},
  author = {One, Ann},
  journal = {Journal of Cones},
  year = {2023},
  doi = {10.1000/cones},
  abstract = {Entailment cones in the Poincar{\\'e} ball, with R{\\'e}nyi DP and
    Erd{\\H{o}}s graphs at a $\\mathcal{O}(\\sqrt{n})$ cost.},
}
"""


def test_latex_accents_are_stored_as_letters_so_a_zotero_copy_meets_the_arxiv_paper(
    tmp_path, client
):
    feed = tmp_path / "query.atom"
    feed.write_text(ARXIV_FEED, "utf-8")
    library = tmp_path / "zotero.bib"
    library.write_text(ZOTERO_BIB, "utf-8")

    assert created_updated(import_paths([str(feed)])) == (1, 0)
    # Its DOI, which the arXiv paper lacks, keeps the Zotero entry from being taken for it by
    # the abstract alone (issue 43, finding 11): a paper of its own, flagged as a possible
    # duplicate of the arXiv paper, whose abstract it has to the letter (and, by their equal
    # titles, the arXiv paper of it).
    report = import_paths([str(library)])
    assert created_updated(report) == (1, 0) and report.duplicates_flagged == 2

    arxiv, zotero = Paper.objects.order_by("pk")
    assert zotero.curation_reason == f"possible duplicate of #{arxiv.pk}"
    assert arxiv.curation_reason == f"possible duplicate of #{zotero.pk}"
    for paper in (arxiv, zotero):
        assert paper.title == "Hyperbolic Cones in the Poincaré Ball"
        assert paper.abstract == (
            "Entailment cones in the Poincaré ball, with Rényi DP and Erdős graphs at a "
            "$\\mathcal{O}(\\sqrt{n})$ cost."
        )
    assert arxiv.abstract_fingerprint == zotero.abstract_fingerprint
    assert (arxiv.doi, zotero.doi) == ("", "10.1000/cones")
    found = client.get("/", {"q": "Poincaré Erdős"}).context["papers"]
    assert sorted(p.pk for p in found) == [arxiv.pk, zotero.pk]
