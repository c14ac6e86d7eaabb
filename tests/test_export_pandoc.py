"""Our citations read by pandoc's citeproc, as a member pasting them into a paper would use
them. Capitals of proper nouns survive a sentence-case style (APA) and math becomes the Greek
letter (issue 27, point 4); a paper from each source is cited as what it is, in its own year
(issue 39, point 6), from the BibTeX export and from the CSL-JSON one. Needs the `pandoc`
program (Debian's package; .ci/run installs it)."""

from __future__ import annotations

import json
import shutil

import pytest
from django.urls import reverse

from annotations.export_data import ExportPaper
from annotations.exports import bibtex_entry
from tests.citation_sources import (
    ADDED_YEAR,
    JOURNAL,
    pandoc_references,
    papers_from_each_source,
)
from tests.factories import make_reading_list
from tests.link_lookup_helpers import use_test_services

pytestmark = pytest.mark.skipif(shutil.which("pandoc") is None, reason="pandoc is not installed")

TITLES = [
    "Sequential Monte Carlo Samplers for Bayesian Deep Learning",
    "Learning the Schrödinger Bridge with Diffusion Models",
    r"$\alpha$TC-VAE: On the Relationship between Disentanglement and Diversity",
]


def _rendered(tmp_path, style: str) -> str:
    papers = [
        ExportPaper(n, title, year=2024, authors=["Sylvain Le Corff", "Ada Lovelace"])
        for n, title in enumerate(TITLES, start=1)
    ]
    entries = [bibtex_entry(paper) for paper in papers]
    keys = [entry.split("{", 1)[1].split(",", 1)[0] for entry in entries]
    return pandoc_references(tmp_path, "\n".join(entries), "refs.bib", keys, style)


@pytest.mark.parametrize("style", ["apa.csl", "ieee.csl"])
def test_pandoc_keeps_proper_nouns_capitalised_and_prints_the_greek_letter(tmp_path, style):
    text = _rendered(tmp_path, style)
    for words in ("Monte Carlo", "Bayesian", "Schrödinger", "αTC-VAE"):
        assert words in text, (words, text)
    assert "$" not in text
    assert "monte carlo" not in text and "bayesian" not in text
    assert "Le Corff" in text


# --- A paper from each source, as the list's exports write it ---------------------------------

# What APA says of each: the year in brackets, then what it was published in. The OpenReview
# paper's venue is cited by its full name (papers.venues.venue_full_name).
APA = {
    "journal": ("(2024)", f"{JOURNAL}."),
    "proceedings": ("(2019)", "Proceedings of the 25th ACM SIGKDD International Conference"),
    "preprint": ("(2024)", "(arXiv:2402.01234). arXiv."),
    "openreview": ("(2024)", "International Conference on Learning Representations (ICLR 2024)"),
}
TITLE_WORDS = {
    "journal": "Learning to route",
    "proceedings": "Optuna",
    "preprint": "Schrödinger bridges",
    "openreview": "Forum paper",
}


@pytest.fixture
def exported(client, user, settings):
    """The four papers on a member's list, and the list's BibTeX and CSL-JSON exports."""
    use_test_services(settings)
    papers = papers_from_each_source(user)
    reading_list = make_reading_list(user, "Cited", papers=list(papers.values()))
    client.force_login(user)
    files = {}
    for extension, name in (("bib", "bibtex"), ("json", "csl")):
        response = client.get(reverse(f"annotations:list-export-{name}", args=[reading_list.pk]))
        assert response.status_code == 200
        files[extension] = response.getvalue().decode("utf-8")
    return papers, files


def _reference_of(text: str, words: str) -> str:
    [line] = [line for line in text.splitlines() if words.casefold() in line.casefold()]
    return line


@pytest.mark.django_db
@pytest.mark.parametrize("extension", ["bib", "json"])
def test_pandoc_cites_each_source_as_what_it_is_in_its_own_year(tmp_path, exported, extension):
    papers, files = exported
    if extension == "bib":
        keys = [
            line.split("{", 1)[1].rstrip(",")
            for line in files["bib"].splitlines()
            if line.startswith("@")
        ]
    else:
        keys = [item["id"] for item in json.loads(files["json"])]
    assert len(keys) == 4

    text = pandoc_references(tmp_path, files[extension], f"refs.{extension}", keys, "apa.csl")

    for name, (year, published_in) in APA.items():
        reference = _reference_of(text, TITLE_WORDS[name])
        assert year in reference and published_in in reference, (name, reference)
    assert str(ADDED_YEAR) not in text
    # A preprint is not "in" anything; a journal article is not in proceedings.
    assert "In " not in _reference_of(text, TITLE_WORDS["preprint"])
    assert "In " not in _reference_of(text, TITLE_WORDS["journal"])


@pytest.mark.django_db
def test_pandoc_reads_each_sources_entry_type_in_ieee(tmp_path, exported):
    _, files = exported
    keys = [item["id"] for item in json.loads(files["json"])]
    text = pandoc_references(tmp_path, files["bib"], "refs.bib", keys, "ieee.csl")
    # IEEE italicises a journal, says "in" before proceedings and names a preprint's server.
    assert f"{JOURNAL}, 2024" in _reference_of(text, TITLE_WORDS["journal"])
    assert "in Proceedings of the 25th" in _reference_of(text, TITLE_WORDS["proceedings"])
    assert "arXiv, 2024" in _reference_of(text, TITLE_WORDS["preprint"])
    assert "in International Conference on Learning Representations (ICLR 2024), 2024" in (
        _reference_of(text, TITLE_WORDS["openreview"])
    )
