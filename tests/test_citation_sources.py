"""Citations right for every source (issue 39, point 6): a paper fetched by its DOI, arXiv link
or OpenReview link keeps the publication type and year its source gives, and is cited as that
(a journal article as @article in its journal, a proceedings paper as @inproceedings, an
arXiv-only paper as an arXiv preprint) in its own year, or "n.d." when its source gives none:
never the year it was added. pandoc's read-back of the same papers: tests/test_export_pandoc."""

from __future__ import annotations

import importlib
import json

import bibtexparser
import httpx
import pytest
import respx
from django.apps import apps
from django.urls import reverse

from bench.standins import v2_note
from papers.importing import openreview
from papers.importing.pipeline import import_records
from papers.importing.publication_types import (
    from_bibtex,
    from_crossref,
    from_ris,
    from_venue_tags,
    merged_type,
)
from papers.models import Paper, PublicationType, Tag, TagKind
from papers.sources.crossref import work_record
from tests.citation_sources import (
    ADDED_YEAR,
    JOURNAL,
    JOURNAL_DOI,
    add_by_link,
    journal_work,
    papers_from_each_source,
)
from tests.factories import make_paper, make_reading_list
from tests.link_lookup_helpers import CROSSREF, use_test_services

pytestmark = pytest.mark.django_db

Type = PublicationType


@pytest.fixture(autouse=True)
def outside_services(settings):
    use_test_services(settings)


@pytest.fixture
def papers(user) -> dict[str, Paper]:
    return papers_from_each_source(user)


def cite_box(client, paper: Paper) -> dict[str, str]:
    """What the paper's Cite section shows: {"apa": ..., "ieee": ..., "bibtex": ...}."""
    response = client.get(reverse("annotations:paper-cite", args=[paper.pk]))
    assert response.status_code == 200
    shown = {slug: text for slug, _, text in response.context["references"]}
    return shown | {"bibtex": response.context["bibtex"]}


def bibtex_of(text: str):
    [entry] = bibtexparser.parse_string(text).entries
    return entry


# --- What each source says, kept ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind", "year"),
    [
        ("journal", Type.JOURNAL_ARTICLE, 2024),
        ("proceedings", Type.CONFERENCE_PAPER, 2019),
        ("preprint", Type.PREPRINT, 2024),
        ("openreview", Type.CONFERENCE_PAPER, 2024),
    ],
)
def test_a_paper_added_by_its_link_keeps_its_sources_type_and_year(papers, name, kind, year):
    assert (papers[name].publication_type, papers[name].year) == (kind, year)


@pytest.mark.parametrize(
    ("dates", "year"),
    [
        ({}, 2024),  # issued
        ({"issued": {"date-parts": [[None]]}}, 2024),  # published-online
        ({"issued": None, "published": {"date-parts": [[2022]]}}, 2022),
        ({"issued": None, "published_print": {"date-parts": [[2025, 1]]}}, 2025),
        ({"issued": None, "published_online": None}, 2023),  # created: registered
        ({"issued": None, "published_online": None, "created": None}, None),
        ({"issued": {"date-parts": [[99999]]}, "published_online": None, "created": None}, None),
    ],
)
def test_a_crossref_year_is_the_first_its_dates_give(dates, year):
    record = work_record(journal_work(**dates)["message"], "crossref", 1)
    assert record.year == year


@pytest.mark.parametrize(
    ("crossref_type", "kind"),
    [
        ("journal-article", Type.JOURNAL_ARTICLE),
        ("proceedings-article", Type.CONFERENCE_PAPER),
        ("posted-content", Type.PREPRINT),
        ("book-chapter", Type.BOOK_CHAPTER),
        ("monograph", Type.BOOK),
        ("dissertation", Type.THESIS),
        ("report", Type.REPORT),
        ("dataset", Type.OTHER),
        ("", ""),
    ],
)
def test_crossref_types(crossref_type, kind):
    assert from_crossref(crossref_type) == kind


def test_reference_managers_types_and_arxiv_given_as_a_journal():
    assert (
        from_bibtex("article", "Journal of Machine Learning Research", "") == Type.JOURNAL_ARTICLE
    )
    assert from_bibtex("InProceedings", "ICML", "") == Type.CONFERENCE_PAPER
    assert from_bibtex("misc", "", "2402.01234") == Type.PREPRINT
    assert from_bibtex("misc", "", "") == Type.OTHER
    # Google Scholar's arXiv papers are @article in the journal "arXiv preprint arXiv:...".
    assert from_bibtex("article", "arXiv preprint arXiv:2402.01234", "2402.01234") == Type.PREPRINT
    assert from_ris("JOUR", "Nature", "") == Type.JOURNAL_ARTICLE
    assert from_ris("CPAPER", "", "") == Type.CONFERENCE_PAPER
    assert from_ris("UNPB", "", "2402.01234") == Type.PREPRINT


@pytest.mark.parametrize(
    ("tags", "kind"),
    [
        (["ICLR 2024", "Poster"], Type.CONFERENCE_PAPER),
        (["NeurIPS 2023 Workshop on Diffusion"], Type.CONFERENCE_PAPER),
        (["TMLR", "Accepted"], Type.JOURNAL_ARTICLE),
        (["ICLR 2024", "Submitted"], Type.PREPRINT),  # a submission is not in the proceedings
        (["ICLR 2024", "Desk rejected"], Type.PREPRINT),
        ([], ""),
    ],
)
def test_openreview_and_seed_papers_are_typed_by_their_venue_and_status(tags, kind):
    assert from_venue_tags(tags) == kind


def test_a_preprint_published_later_is_cited_as_published_never_back():
    assert merged_type(Type.PREPRINT, Type.JOURNAL_ARTICLE) == Type.JOURNAL_ARTICLE
    assert merged_type(Type.JOURNAL_ARTICLE, Type.PREPRINT) == Type.JOURNAL_ARTICLE
    assert merged_type(Type.CONFERENCE_PAPER, Type.JOURNAL_ARTICLE) == Type.CONFERENCE_PAPER
    assert merged_type("", Type.OTHER) == Type.OTHER
    assert merged_type(Type.OTHER, Type.PREPRINT) == Type.PREPRINT


def _openreview_import(venue: str) -> Paper:
    note = v2_note("Zg8ygQlHhl", "Forum Paper", venue=venue)
    import_records(openreview.note_records(note, "openreview:ICLR", 1), source="openreview:ICLR")
    return Paper.objects.get(forum_id="Zg8ygQlHhl")


def test_a_submission_accepted_later_becomes_a_conference_paper_and_stays_one():
    assert _openreview_import("Submitted to ICLR 2024").publication_type == Type.PREPRINT
    assert _openreview_import("ICLR 2024 Poster").publication_type == Type.CONFERENCE_PAPER
    assert _openreview_import("Submitted to ICLR 2024").publication_type == Type.CONFERENCE_PAPER


def test_a_curators_type_is_kept_by_a_later_import():
    paper = _openreview_import("Submitted to ICLR 2024")
    paper.publication_type = Type.JOURNAL_ARTICLE
    paper.curator_edited_fields = ["publication_type"]
    paper.save()
    assert _openreview_import("ICLR 2024 Poster").publication_type == Type.JOURNAL_ARTICLE


# --- Cited as what it is ---------------------------------------------------------------------


def test_a_journal_article_is_an_article_in_its_journal_in_its_year(client, papers):
    shown = cite_box(client, papers["journal"])
    entry = bibtex_of(shown["bibtex"])
    assert entry.entry_type == "article"
    assert entry.fields_dict["journal"].value == "{" + JOURNAL + "}"
    assert entry.fields_dict["year"].value == "2024"
    assert "booktitle" not in entry.fields_dict
    assert f"(2024). Learning to Route with Sparse Experts. {JOURNAL}." in shown["apa"]
    assert f"{JOURNAL}, 2024" in shown["ieee"]


def test_a_proceedings_paper_is_inproceedings_with_its_booktitle(client, papers):
    shown = cite_box(client, papers["proceedings"])
    entry = bibtex_of(shown["bibtex"])
    assert entry.entry_type == "inproceedings"
    assert "Knowledge Discovery" in entry.fields_dict["booktitle"].value
    assert entry.fields_dict["year"].value == "2019"
    assert "(2019)" in shown["apa"]


def test_an_arxiv_only_paper_is_an_arxiv_preprint(client, papers):
    shown = cite_box(client, papers["preprint"])
    entry = bibtex_of(shown["bibtex"])
    assert entry.entry_type == "misc"
    fields = {name: field.value for name, field in entry.fields_dict.items()}
    assert {name: fields[name] for name in ("eprint", "archivePrefix", "primaryClass")} == {
        "eprint": "2402.01234",
        "archivePrefix": "arXiv",
        "primaryClass": "cs.LG",
    }
    assert fields["year"] == "2024"
    assert "booktitle" not in fields and "journal" not in fields
    assert (
        "(2024). Schrödinger bridges for Lévy processes (arXiv:2402.01234). arXiv."
        in (shown["apa"])
    )


def test_an_openreview_paper_is_inproceedings_at_its_venue(client, papers):
    shown = cite_box(client, papers["openreview"])
    entry = bibtex_of(shown["bibtex"])
    assert entry.entry_type == "inproceedings"
    assert entry.fields_dict["booktitle"].value == (
        "{International Conference on Learning Representations (ICLR 2024)}"
    )
    assert "(2024)" in shown["apa"]


def test_no_citation_says_the_year_the_paper_was_added(client, papers):
    for paper in papers.values():
        shown = cite_box(client, paper)
        assert all(str(ADDED_YEAR) not in text for text in shown.values()), shown


def test_ris_and_csl_json_name_each_sources_type(client, user, papers):
    reading_list = make_reading_list(user, "Cited", papers=list(papers.values()))
    client.force_login(user)
    ris = client.get(reverse("annotations:list-export-ris", args=[reading_list.pk]))
    records = [record.strip() for record in ris.getvalue().decode().split("ER  - ")[:-1]]
    assert [record.split("\r\n")[0] for record in records] == [
        "TY  - JOUR",
        "TY  - CPAPER",
        "TY  - UNPB",
        "TY  - CPAPER",
    ]
    assert "PB  - arXiv" in records[2] and "PY  - 2024" in records[2]
    csl = client.get(reverse("annotations:list-export-csl", args=[reading_list.pk]))
    items = json.loads(csl.getvalue().decode())
    assert [item["type"] for item in items] == [
        "article-journal",
        "paper-conference",
        "article",
        "paper-conference",
    ]
    assert (items[2]["publisher"], items[2]["number"]) == ("arXiv", "arXiv:2402.01234")
    assert "container-title" not in items[2]


@respx.mock
def test_a_work_without_a_date_is_cited_n_d_never_with_the_year_it_was_added(client, user):
    dateless = journal_work(issued=None, published_online=None, created=None)
    respx.get(f"{CROSSREF}/works/{JOURNAL_DOI}").mock(
        return_value=httpx.Response(200, json=dateless)
    )
    paper = add_by_link(user, JOURNAL_DOI)
    assert paper.year is None

    shown = cite_box(client, paper)

    assert "year" not in bibtex_of(shown["bibtex"]).fields_dict
    assert "(n.d.)" in shown["apa"]
    assert str(paper.created_at.year) not in shown["apa"]


# --- Papers imported before types were kept --------------------------------------------------


def test_the_migration_types_existing_papers_where_their_identifiers_and_tags_say():
    migration = importlib.import_module("papers.migrations.0035_paper_publication_type")
    iclr, submitted = ("ICLR 2024", TagKind.VENUE), ("Submitted", TagKind.TRACK)
    accepted = make_paper("Accepted", forum_id="acc1", tags=[iclr, ("Poster", TagKind.TRACK)])
    rejected = make_paper("Rejected", forum_id="rej1", tags=[iclr, submitted])
    journal = make_paper("Journal", forum_id="tmlr1", tags=[("TMLR", TagKind.VENUE)])
    preprint = make_paper("Preprint", forum_id="", arxiv_id="2402.01234")
    by_doi = make_paper("By DOI", forum_id="", doi="10.1000/x", tags=[("Nature", TagKind.VENUE)])
    seed = make_paper("Seed", forum_id="", tags=[iclr])  # an abstract list's, under its venue
    bare = make_paper("Bare", forum_id="")
    Paper.objects.update(publication_type="")
    assert Tag.objects.filter(kind=TagKind.TRACK, key="submitted").exists()

    migration.fill_publication_types(apps, None)

    kinds = dict(Paper.objects.values_list("title", "publication_type"))
    assert kinds == {
        accepted.title: Type.CONFERENCE_PAPER,
        rejected.title: Type.PREPRINT,
        journal.title: Type.JOURNAL_ARTICLE,
        preprint.title: Type.PREPRINT,
        by_doi.title: "",  # Crossref or a reference manager said; not derivable here
        seed.title: Type.CONFERENCE_PAPER,
        bare.title: "",
    }
