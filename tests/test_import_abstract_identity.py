"""Issue 43, finding 11: a copied abstract never rewrites a paper.

A record that brings a forum id, arXiv id or DOI of its own (one the paper lacks) and another
paper's abstract is another paper telling the same abstract: it becomes a paper of its own,
flagged for a curator as a possible duplicate, and the paper it copied keeps its title, PDF
link, year and authors, with no conflict listed. A record with no identifier of its own (an
abstract list, a curator's file) still finds its paper by its abstract, and a full record
still completes a paper that is only an abstract.
"""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from papers.importing.pipeline import import_paths
from papers.models import ImportConflict, Paper
from papers.sources import single
from tests.arxiv_feed import atom_entry, feed
from tests.factories import make_paper, make_user

pytestmark = pytest.mark.django_db

# Short on purpose: the flag must not depend on the likely-duplicate rules, which compare only
# abstracts of 30 words or more.
ABSTRACT = "We make sparse attention exact at linear cost."
SHOWN = ("title", "pdf_url", "year", "author_names", "forum_id", "arxiv_id", "doi", "abstract")
ARXIV = "https://arxiv.test/api/query"


@pytest.fixture
def victim() -> Paper:
    """A catalogue paper without a forum id (a curator's entry, a BibTeX import)."""
    return make_paper(
        "Sparse Attention Done Right",
        abstract=ABSTRACT,
        authors=["Ann One", "Bob Two"],
        forum_id="",
        year=2023,
        pdf_url="https://example.org/sparse.pdf",
    )


def write_jsonl(path, *records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return str(path)


def shown(paper: Paper) -> dict:
    return Paper.objects.filter(pk=paper.pk).values(*SHOWN).get()


COPY = {
    "title": "Somebody Else's Paper",
    "authors": ["Mallory Three"],
    "abstract": ABSTRACT,
    "pdf": "https://elsewhere.example/copy.pdf",
}


@pytest.mark.parametrize(
    "identity",
    [{"forum_id": "copy1"}, {"arxiv_id": "2409.00001"}, {"doi": "10.5281/zenodo.123"}],
    ids=["forum id", "arXiv id", "DOI"],
)
def test_a_record_with_its_own_identifier_and_a_copied_abstract_changes_nothing(
    tmp_path, victim, identity
):
    before = shown(victim)

    report = import_paths([write_jsonl(tmp_path / "copy.jsonl", {**COPY, **identity})])

    assert shown(victim) == before
    assert not ImportConflict.objects.exists()
    (name, value), copy = next(iter(identity.items())), Paper.objects.exclude(pk=victim.pk).get()
    assert (copy.title, getattr(copy, name)) == ("Somebody Else's Paper", value)
    assert (report.total.created, report.total.updated) == (1, 0)
    assert report.duplicates_flagged == 1
    assert copy.needs_curation and copy.curation_reason == f"possible duplicate of #{victim.pk}"


@respx.mock
def test_a_members_lookup_of_a_copy_leaves_the_paper_alone(settings, victim):
    settings.ARXIV_API_URL = ARXIV
    settings.ARXIV_API_DELAY = 0
    entry = atom_entry(
        "2409.00002",
        published="2024-09-01T10:00:00Z",
        title="Somebody Else's Paper",
        summary=ABSTRACT,
        authors=("Mallory Three",),
    )
    respx.get(ARXIV).mock(return_value=httpx.Response(200, text=feed([entry], total=1)))
    before = shown(victim)

    added = single.paper_for_identifier("arXiv:2409.00002", user=make_user("mallory"))

    assert shown(victim) == before  # the year (2023, not 2024) included
    assert not ImportConflict.objects.exists()
    assert added is not None and added.pk != victim.pk
    assert (added.arxiv_id, added.year, added.title) == (
        "2409.00002",
        2024,
        "Somebody Else's Paper",
    )
    assert added.curation_reason == f"possible duplicate of #{victim.pk}"


# Positive controls: the abstract still finds a paper where nothing else names one


def test_a_record_without_identifiers_still_finds_the_paper_by_its_abstract(tmp_path, victim):
    record = {"title": "Sparse Attention Done Right", "abstract": ABSTRACT, "tags": "ICLR 2024"}

    report = import_paths([write_jsonl(tmp_path / "list.jsonl", record)])

    assert (report.total.created, report.total.updated) == (0, 1)
    assert Paper.objects.get() == victim
    assert list(victim.tags.values_list("name", flat=True)) == ["ICLR 2024"]
    assert not Paper.objects.get().needs_curation


def test_a_full_record_still_completes_a_paper_that_is_only_an_abstract(tmp_path):
    list_path = tmp_path / "list.txt"
    list_path.write_text(f"ICLR 2024 Papers\n\n{ABSTRACT}\n", "utf-8")
    import_paths([str(list_path)])
    untitled = Paper.objects.get()

    report = import_paths([write_jsonl(tmp_path / "full.jsonl", {**COPY, "forum_id": "full1"})])

    assert (report.total.created, report.total.updated) == (0, 1)
    paper = Paper.objects.get()
    assert (paper.pk, paper.title, paper.forum_id) == (
        untitled.pk,
        "Somebody Else's Paper",
        "full1",
    )
    assert report.duplicates_flagged == 0


def test_a_record_whose_arxiv_doi_is_the_paper_s_arxiv_id_is_the_paper(tmp_path, victim):
    Paper.objects.filter(pk=victim.pk).update(arxiv_id="2409.00001")
    record = {**COPY, "title": "Sparse Attention Done Right", "doi": "10.48550/arXiv.2409.00001"}

    report = import_paths([write_jsonl(tmp_path / "same.jsonl", record)])

    assert (report.total.created, report.total.updated) == (0, 1)
    assert Paper.objects.get().doi == "10.48550/arxiv.2409.00001"
