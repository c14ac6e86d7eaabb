"""A paper by its link: which outside paper a member's text names, and a Crossref work read
as a record (the documented /works/{doi} answer)."""

from __future__ import annotations

import pytest

from papers.sources.crossref import jats_text, work_record
from papers.sources.identifiers import Kind, parse_identifier

DOI = "10.1145/3292500.3330701"


def crossref_work(doi: str = DOI) -> dict:
    """A work as Crossref's REST API answers /works/{doi} (api_format.md)."""
    return {
        "status": "ok",
        "message-type": "work",
        "message-version": "1.0.0",
        "message": {
            "DOI": doi.upper(),
            "type": "proceedings-article",
            "title": ["Optuna: A Next-generation Hyperparameter Optimization Framework"],
            "author": [
                {
                    "given": "Takuya",
                    "family": "Akiba",
                    "sequence": "first",
                    "ORCID": "http://orcid.org/0000-0002-1825-0097",
                    "authenticated-orcid": False,
                    "affiliation": [{"name": "Preferred Networks"}],
                },
                {"given": "Shotaro", "family": "Sano", "sequence": "additional"},
                {"name": "The Optuna Consortium", "sequence": "additional"},
            ],
            "container-title": [
                "Proceedings of the 25th ACM SIGKDD International Conference on Knowledge "
                "Discovery &amp; Data Mining"
            ],
            "issued": {"date-parts": [[2019, 7, 25]]},
            "abstract": (
                "<jats:title>Abstract</jats:title><jats:p>The purpose of this study is to "
                "introduce new design-criteria for <jats:italic>next-generation</jats:italic> "
                "hyperparameter optimization software.</jats:p><jats:p>Second &amp; last.</jats:p>"
            ),
            "URL": f"https://doi.org/{doi}",
            "link": [
                {
                    "URL": "https://dl.acm.org/doi/pdf/10.1145/3292500.3330701",
                    "content-type": "application/pdf",
                    "content-version": "vor",
                    "intended-application": "similarity-checking",
                }
            ],
            "subject": ["Software"],
        },
    }


# --- Parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "kind", "value"),
    [
        ("https://arxiv.org/abs/2402.01234v2", Kind.ARXIV, "2402.01234"),
        ("arxiv.org/pdf/2402.01234v3.pdf", Kind.ARXIV, "2402.01234"),
        ("https://arxiv.org/pdf/2402.01234", Kind.ARXIV, "2402.01234"),
        ("arXiv:2402.01234", Kind.ARXIV, "2402.01234"),
        ("http://export.arxiv.org/abs/hep-th/9901001v1", Kind.ARXIV, "hep-th/9901001"),
        ("hep-th/9901001", Kind.ARXIV, "hep-th/9901001"),
        ("https://openreview.net/forum?id=Zg8ygQlHhl", Kind.OPENREVIEW, "Zg8ygQlHhl"),
        ("https://openreview.net/pdf?id=SyZipzbCb", Kind.OPENREVIEW, "SyZipzbCb"),
        ("Zg8ygQlHhl", Kind.OPENREVIEW, "Zg8ygQlHhl"),
        (DOI, Kind.DOI, DOI),
        (f"doi:{DOI}", Kind.DOI, DOI),
        ("https://doi.org/10.1038/NATURE12373", Kind.DOI, "10.1038/nature12373"),
    ],
)
def test_links_and_ids_name_their_paper(typed, kind, value):
    identifier = parse_identifier(typed)
    assert identifier is not None
    assert (identifier.kind, identifier.value) == (kind, value)


@pytest.mark.parametrize(
    "typed",
    ["transformers", "BatchNorm", "12345678", "https://example.com/forum?id=Zg8ygQlHhl", ""],
)
def test_words_and_other_sites_name_no_outside_paper(typed):
    assert parse_identifier(typed) is None


def test_a_crossref_work_becomes_a_record():
    record = work_record(crossref_work()["message"], "crossref", 1)
    assert record.title == "Optuna: A Next-generation Hyperparameter Optimization Framework"
    assert record.authors == ["Takuya Akiba", "Shotaro Sano", "The Optuna Consortium"]
    assert record.year == 2019
    assert record.doi == DOI.upper()  # the loader's validation lowers it
    assert record.pdf_url == "https://dl.acm.org/doi/pdf/10.1145/3292500.3330701"
    assert record.abstract == (
        "The purpose of this study is to introduce new design-criteria for next-generation "
        "hyperparameter optimization software.\n\nSecond & last."
    )
    assert record.tags  # the proceedings, as a reference's booktitle is read


def test_jats_without_paragraphs_is_its_text():
    assert jats_text("A <jats:sub>2</jats:sub> plain abstract") == "A 2 plain abstract"
